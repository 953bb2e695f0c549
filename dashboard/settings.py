"""One settings module, driven by environment variables.

With nothing set this is the *embedded default*: a SQLite file under ``var/``, Celery tasks run
in-process right after the transaction that enqueued them commits, no model (rules extractor and
template summaries). ``DATABASE_URL`` switches to PostgreSQL, ``REDIS_URL`` to a real Celery broker,
``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` / ``LLM_MODEL`` turn the model on, and
``DJANGO_ENV=production`` turns on the settings a public deployment needs.
"""

import os
from pathlib import Path
from typing import Any

import dj_database_url
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value else default


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


PRODUCTION = env_str("DJANGO_ENV", "embedded") == "production"
DEBUG = env_bool("DEBUG", default=False)

# The embedded default gets a fixed development key; production refuses to start without one.
if PRODUCTION:
    SECRET_KEY = os.environ["SECRET_KEY"]
else:
    SECRET_KEY = env_str("SECRET_KEY", "embedded-default-key-change-me-for-any-shared-deployment")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "memory",
    "dashboard",
]

MIDDLEWARE = [
    "dashboard.health.middleware",  # /healthz, /readyz: before host checks and HTTPS redirects
    # Model work a request queues starts once the view has returned (embedded default).
    "memory.background.AfterResponseMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "dashboard.middleware.refuse_nul_in_path",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "dashboard.urls"
WSGI_APPLICATION = "dashboard.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATA_DIR = Path(env_str("DATA_DIR", str(BASE_DIR / "var")))
if env_str("DATABASE_URL"):
    DATABASES = {"default": dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=60)}
else:
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(DATA_DIR / "observations.sqlite3"),
            "OPTIONS": {
                # IMMEDIATE transactions and a busy timeout let the web server and the in-process
                # tasks share one SQLite file without "database is locked" errors.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Celery: a real broker with REDIS_URL, in-process otherwise -------------------------------
REDIS_URL = env_str("REDIS_URL")
CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"
# Kombu's Redis transport with a worker-killing failure on connection loss made survivable.
CELERY_BROKER_TRANSPORT = "dashboard.broker:Transport" if REDIS_URL else None
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 900)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 840)
# An unacknowledged task is redelivered after this many seconds (worker lost without a clean
# shutdown). Keep it above the hard time limit so a slow task is not run twice.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 1800),
}
# A task running when the broker connection drops finishes its work instead of being killed:
# killing it left its episodes "processing" until the sweep's stale timeout, and Celery's
# reconnection after the kill is fragile. Its message is delivered again later (it could not be
# acknowledged on the lost connection), which is harmless: every task claims its rows first.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# However long the broker is away, a worker keeps trying to reconnect (Celery gives up, and the
# worker exits, after 100 attempts by default: about 45 minutes).
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "observations")

# A running pipeline run whose heartbeat is older than this lost its worker (the sweep frees the
# graph); a "processing" episode older than EPISODE_STALE_SECONDS is requeued.
PIPELINE_RUN_STALE_SECONDS = env_int("PIPELINE_RUN_STALE_SECONDS", 600)
EPISODE_STALE_SECONDS = env_int("EPISODE_STALE_SECONDS", 900)
# A pending episode older than this was never picked up (its task could not be sent while Redis
# was down, or was lost with it): the sweep enqueues it. This is how writes accepted during a
# broker outage get processed once it is back (no outbox table: the episodes are the outbox).
EPISODE_PENDING_GRACE_SECONDS = env_int("EPISODE_PENDING_GRACE_SECONDS", 120)

# --- Cache (throttling, login throttle) ---------------------------------------------------------


def redis_cache(location: str, key_prefix: str = "observations") -> dict[str, Any]:
    """Redis; while Redis is unreachable, each process falls back to its own memory
    (``dashboard.cache``), so an outage never turns reads, sign-in or writes into 500s."""
    return {"BACKEND": "dashboard.cache.FailoverRedisCache", "LOCATION": location,
            "KEY_PREFIX": key_prefix}


if REDIS_URL:
    CACHES: dict[str, dict[str, Any]] = {
        "default": redis_cache(env_str("CACHE_URL", REDIS_URL),
                               env_str("CACHE_PREFIX", "observations")),
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Stalled items ------------------------------------------------------------------------------
# The default of the graph setting stalled_after_weeks: an item in one state this many weeks is an
# observation of its own (memory.engine.stalled); 0 turns them off. Owners override it per graph.
STALLED_AFTER_WEEKS = env_int("STALLED_AFTER_WEEKS", 3)

# --- The model (optional) ----------------------------------------------------------------------
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL")
LLM_MODEL = env_str("LLM_MODEL", "gpt-4.1-mini" if OPENAI_API_KEY else "")
LLM_ENABLED = bool(OPENAI_API_KEY and LLM_MODEL)
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 60.0)
LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", 2)
LLM_EXTRACTION = env_bool("LLM_EXTRACTION", default=LLM_ENABLED)
# Our own bounded retries (the SDK's are off so that every attempt is audited): the first wait,
# doubled each time, and the longest Retry-After we are willing to wait for.
LLM_RETRY_BACKOFF_SECONDS = env_float("LLM_RETRY_BACKOFF_SECONDS", 1.0)
LLM_RETRY_MAX_WAIT_SECONDS = env_float("LLM_RETRY_MAX_WAIT_SECONDS", 20.0)
# Sent only when set: some reasoning models reject any temperature.
LLM_TEMPERATURE = env_float("LLM_TEMPERATURE", 0.0) if env_str("LLM_TEMPERATURE") else None
# Cost: updates per extraction call, clusters per summary call (memory.extraction.llm,
# memory.summarize).
LLM_EXTRACTION_BATCH_SIZE = env_int("LLM_EXTRACTION_BATCH_SIZE", 16)
LLM_SUMMARY_BATCH_SIZE = env_int("LLM_SUMMARY_BATCH_SIZE", 8)
# Breakers (memory.llm.Breaker): failed calls in a row before the model is left alone, and how
# long before one trial call; a model found unusable is checked again after this long; the sweep
# asks again for templates written because the model failed once a graph's last run is this old.
LLM_BREAKER_FAILURES = env_int("LLM_BREAKER_FAILURES", 3)
LLM_BREAKER_COOLDOWN_SECONDS = env_float("LLM_BREAKER_COOLDOWN_SECONDS", 60.0)
LLM_ENDPOINT_RECHECK_SECONDS = env_float("LLM_ENDPOINT_RECHECK_SECONDS", 3600.0)
LLM_PENDING_RETRY_SECONDS = env_float("LLM_PENDING_RETRY_SECONDS", 600.0)

# --- Auth, i18n, static -------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Failed sign-ins allowed per username / per client address within the window (dashboard.throttle).
LOGIN_THROTTLE_PER_USERNAME = env_int("LOGIN_THROTTLE_PER_USERNAME", 5)
LOGIN_THROTTLE_PER_ADDRESS = env_int("LOGIN_THROTTLE_PER_ADDRESS", 30)
LOGIN_THROTTLE_WINDOW_SECONDS = env_int("LOGIN_THROTTLE_WINDOW_SECONDS", 900)
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
if not PRODUCTION:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns about a missing one
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Serve straight from the app and project static folders, so the embedded default needs no
# collectstatic; production images run collectstatic and serve from STATIC_ROOT.
WHITENOISE_USE_FINDERS = not PRODUCTION

# --- Security headers ----------------------------------------------------------------------------
SECURE_CSP: dict[str, list[str]] = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
if PRODUCTION:
    # TLS normally terminates at a proxy in front of gunicorn; it must strip a client-sent
    # X-Forwarded-Proto for this header to be trustworthy.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 10 * 1024 * 1024)
# The largest JSON Lines file the episodes page accepts (bigger imports: manage.py ingest).
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 20 * 1024 * 1024)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
    "loggers": {"memory": {"level": env_str("LOG_LEVEL", "INFO")}},
}

# --- APIs (memory/api): native /api/v1/ and the Zep v4-compatible /api/v4/ -----------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "memory.api.auth.ApiKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["memory.api.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "memory.api.errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
# Per API key (per user for sessions): "api" for reads, "ingest" for writes.
API_THROTTLE_RATES = {
    "api": env_str("API_THROTTLE_RATE", "1200/min"),
    "ingest": env_str("API_INGEST_THROTTLE_RATE", "600/min"),
}
API_MAX_BULK_EPISODES = env_int("API_MAX_BULK_EPISODES", 1000)
IDEMPOTENCY_TTL_SECONDS = env_int("IDEMPOTENCY_TTL_SECONDS", 24 * 3600)
IDEMPOTENCY_LEASE_SECONDS = env_int("IDEMPOTENCY_LEASE_SECONDS", 60)
SPECTACULAR_SETTINGS = {
    "TITLE": "Observations API",
    "DESCRIPTION": (
        "Write episodes, read facts, entities and observations (read-only), start pipeline "
        "runs, search. Authenticate with `Authorization: Api-Key <key>` (or `Bearer <key>`). "
        "Errors are `{\"error\": {\"code\", \"message\", \"param\", \"details\"}}`. Lists use "
        "opaque cursors (`cursor`, `next_cursor`). Writes honour `Idempotency-Key`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "PREPROCESSING_HOOKS": ["memory.api.schema.native_only"],
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "EpisodeStatusEnum": "memory.models.Episode.Status",
        "RunStatusEnum": "memory.models.PipelineRun.Status",
        "ObservationStatusEnum": "memory.models.Observation.Status",
        "ObservationKindEnum": "memory.models.Observation.Kind",
        "GraphKindEnum": "memory.models.Graph.Kind",
        "IngestOutcomeEnum": ["stored", "duplicate", "rejected"],
        "AddedOutcomeEnum": ["stored", "duplicate"],
        "StatusFilterEnum": ["active", "retired", "all"],
        "SearchKindEnum": ["observation", "fact", "episode", "entity"],
    },
}
