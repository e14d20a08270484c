"""Settings for the Idiomaticity Workbench: one module, configured from the environment."""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from config.env import (
    broker_url,
    database_config,
    env_bool,
    env_int,
    env_list,
    env_str,
    secret_key,
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
    "drf_spectacular",
    "django_celery_beat",
    "datasets",
    "annotation",
    "probing",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": env_int("API_PAGE_SIZE", 50, minimum=1),
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_FILTER_BACKENDS": [],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Idiomaticity Workbench API",
    "DESCRIPTION": "Noun compounds, their sentences and minimal-pair variants.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Choice sets that share a field name with another serializer's get their own component name.
    "ENUM_NAME_OVERRIDES": {"ProbeRunStatusEnum": "probing.models.ProbeRun.STATUS_CHOICES"},
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

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO").upper()},
}

if not DEBUG and SECRET_KEY.startswith("django-insecure"):
    raise ImproperlyConfigured("SECRET_KEY looks like a development key: set a real one.")
