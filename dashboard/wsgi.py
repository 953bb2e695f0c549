import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
application = get_wsgi_application()

# Everything loaded so far (Django, the apps, the URL conf) lives as long as the worker: move it
# out of the collector's reach, so the collections a request triggers scan only what the request
# allocated. Without it the cyclic collector's pauses made the slowest 5% of board requests about
# twice as slow as the median (the bench's board p95).
gc.freeze()
