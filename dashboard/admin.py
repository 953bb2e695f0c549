"""The admin site's own settings: its sign-in goes through the same login throttle as the
dashboard's."""

from django.contrib import admin

from dashboard.forms import AdminLoginForm

admin.site.login_form = AdminLoginForm
admin.site.site_header = "Observations — admin audit"
admin.site.site_title = "Observations admin"
admin.site.index_title = "Evidence, runs and model calls"
