"""GitLoom settings: every knob comes from the environment, here and nowhere else.

Defaults give a working local install with no configuration at all: an embedded
Postgres and a local object store under ``GITLOOM_DATA_DIR`` (default ``.gitloom/``),
the offline extractor and the offline MiniLM embedder.
"""

from __future__ import annotations

import ipaddress
import json
import os
import sys
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    # An empty variable means "not set", as in most deployment tools.
    return os.environ.get(name) or default


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _env_number(name: str, default, kind):
    value = os.environ.get(name)
    if not value:
        return default
    try:
        return kind(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {value!r}.") from None


def env_int(name: str, default: int) -> int:
    return _env_number(name, default, int)


def env_float(name: str, default: float) -> float:
    return _env_number(name, default, float)


def env_optional_int(name: str) -> int | None:
    return _env_number(name, None, int)


def env_optional_float(name: str) -> float | None:
    return _env_number(name, None, float)


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# --- Local state -------------------------------------------------------------------
GITLOOM_DATA_DIR = Path(env_str("GITLOOM_DATA_DIR", str(BASE_DIR / ".gitloom"))).resolve()

# --- Core Django -------------------------------------------------------------------
DEV_SECRET_KEY = "gitloom-local-development-only-not-secret"
SECRET_KEY = env_str("GITLOOM_SECRET_KEY", DEV_SECRET_KEY)
USING_DEV_SECRET_KEY = SECRET_KEY == DEV_SECRET_KEY
DEBUG = env_bool("GITLOOM_DEBUG", False)
ALLOWED_HOSTS = env_list("GITLOOM_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("GITLOOM_CSRF_TRUSTED_ORIGINS")
SECURE_COOKIES = env_bool("GITLOOM_SECURE_COOKIES", False)
SESSION_COOKIE_SECURE = SECURE_COOKIES
CSRF_COOKIE_SECURE = SECURE_COOKIES
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True

# `manage.py serve` says so when the development key is in use.

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
    "gitloom",  # the ground (gitloom.core): checks, the throttle's tables, static files
    # before django_q: the shell's `qcluster` (the pgvector self-check first) wins the name
    "server",
    "django_q",
    "accounts",
    "namespaces",
    "memories",
    "retrieval",
    "evaluation",  # the eval_* and bench_* commands (docs/EVAL.md)
]

if sys.argv[1:2] == ["mcp"]:
    # `manage.py mcp` only relays to the API (see RELAY_ONLY below): loading the other
    # apps' models, admin and schema extensions was a third of its start-up.
    INSTALLED_APPS = ["gitloom", "server"]

MIDDLEWARE = [
    # Outermost, so a request's time covers every other middleware (gitloom/core/request_metrics.py).
    "gitloom.core.request_metrics.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "gitloom.core.middleware.BodySizeLimitMiddleware",
    # Django's own four, each skipped by /v1/ API-key requests (gitloom/core/middleware.py).
    "gitloom.core.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "gitloom.core.middleware.CsrfViewMiddleware",
    "gitloom.core.middleware.AuthenticationMiddleware",
    "gitloom.core.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# Proxies (addresses or CIDR networks, comma-separated) whose X-Forwarded-For is
# believed: the client's address for brute-force throttling is then the rightmost hop
# that is not one of them (gitloom/core/throttle.py). Empty: the peer's address, header ignored.
GITLOOM_TRUSTED_PROXIES = env_list("GITLOOM_TRUSTED_PROXIES")
for _proxy in GITLOOM_TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"GITLOOM_TRUSTED_PROXIES: {_proxy!r} is not an IP address or CIDR network."
        ) from None
# Per process; brute-force counters, which every worker and node must share, are
# rows in Postgres (gitloom/core/throttle.py).
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

ROOT_URLCONF = "server.urls"
WSGI_APPLICATION = "server.wsgi.application"

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
            ],
        },
    },
]

# --- Database ----------------------------------------------------------------------
# `manage.py mcp` only relays to the API at GITLOOM_API_URL: it needs no database and
# keeps nothing on disk, so it starts no embedded Postgres and creates no data directory
# (a desktop agent launches it every session; starting a database cost ~1.6-2.4 s).
RELAY_ONLY = sys.argv[1:2] == ["mcp"]
DATABASE_URL = env_str("DATABASE_URL")
EMBEDDED_POSTGRES = False
if RELAY_ONLY:
    DATABASES = {}  # Django's dummy backend: any query would fail loudly
else:
    if not DATABASE_URL:
        from server.embedded_postgres import embedded_database_url

        # The embedded server's buffer cache: a namespace's cue vectors and their HNSW
        # graph (~800 MB at 100,000 memories) are read on every query, so should fit.
        GITLOOM_POSTGRES_SHARED_BUFFERS = env_str("GITLOOM_POSTGRES_SHARED_BUFFERS", "1GB")
        DATABASE_URL = embedded_database_url(
            GITLOOM_DATA_DIR, shared_buffers=GITLOOM_POSTGRES_SHARED_BUFFERS
        )
        EMBEDDED_POSTGRES = True

    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
    # A persistent connection is checked before each request uses it, and a dead one
    # replaced; gitloom.core.postgresql asks the socket first, so a live one costs no round trip.
    DATABASES["default"]["ENGINE"] = "gitloom.core.postgresql"
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# The fused retrieval statement is prepared per namespace and connection and runs on a
# generic plan (retrieval/query.py): parsing and planning it cost as much as running
# it. Turn off behind a transaction-mode connection pooler that cannot carry
# protocol-level prepared statements; retrieval then plans every query.
GITLOOM_PREPARED_STATEMENTS = env_bool("GITLOOM_PREPARED_STATEMENTS", True)
if GITLOOM_PREPARED_STATEMENTS and not RELAY_ONLY:
    # Django turns psycopg's prepared statements off; only statements executed with
    # prepare=True (retrieval's) are prepared: Django's own cursors bind on the client.
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 5
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth and sessions -------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
# Which account a signed-in person's dashboard acts for: the accounts app decides, and the
# core's dashboard base (gitloom.core.dashboard) finds it by this name, importing no app.
DASHBOARD_ACCOUNT = "accounts.selectors.account_for_dashboard"
LOGOUT_REDIRECT_URL = "/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = GITLOOM_DATA_DIR / "static"
if not RELAY_ONLY:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns about a missing one
# whitenoise serves the admin and API-docs assets from gunicorn; no separate web server.
# Plain storage: `serve` runs collectstatic at every start, and whitenoise's compressed
# storage re-compressed every asset each time (~1.8 s of a 2-core machine's start-up).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# --- API ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiKeyAuthentication",
        "accounts.authentication.DashboardSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["accounts.authentication.HasAccount"],
    "DEFAULT_RENDERER_CLASSES": ["gitloom.core.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["gitloom.core.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "gitloom.core.envelope.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "gitloom.core.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": None,
    "UNAUTHENTICATED_USER": None,
    # `?format=` is ours (export format), not DRF's renderer override.
    "URL_FORMAT_OVERRIDE": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "GitLoom API",
    "DESCRIPTION": "Memory for LLM applications: conversations in, git-backed markdown "
    "memories out, fused retrieval back.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

# Largest JSON body accepted by /v1/ (transcripts); bigger is 413.
GITLOOM_MAX_BODY_BYTES = env_int("GITLOOM_MAX_BODY_BYTES", 2 * 1024 * 1024)
GITLOOM_MAX_IMPORT_BYTES = env_int("GITLOOM_MAX_IMPORT_BYTES", 64 * 1024 * 1024)
GITLOOM_MAX_TRANSCRIPT_CHARS = env_int("GITLOOM_MAX_TRANSCRIPT_CHARS", 400_000)
# An import body over this many bytes is run by the queue as a job (202), not inside
# its request: validating, committing and indexing thousands of memories outlasts a
# web worker's timeout (measured ~50-160 files/s with indexing on 2 shared cores; 16 KiB
# of tar.gz is up to ~700 small memories, ~5-15 s).
GITLOOM_IMPORT_INLINE_BYTES = env_int("GITLOOM_IMPORT_INLINE_BYTES", 16 * 1024)
# Longest one database statement may run inside a web request, in seconds (0: no
# limit). Past it the request answers 503 request_timeout with Retry-After rather than
# holding its worker thread. Only serve's web workers apply it: jobs (large imports
# included) and commands such as reindex may run longer statements.
GITLOOM_REQUEST_STATEMENT_TIMEOUT = env_float("GITLOOM_REQUEST_STATEMENT_TIMEOUT", 30.0)
# Slow clients (server/web_worker.py): a request's headers must arrive within this
# many seconds of its first byte being awaited, and its body within the second figure
# of its headers, or the connection is answered 408 and closed; a worker thread never
# waits on a client's bytes. A response that makes no progress for the third figure
# (a client that stopped reading) is cut off.
GITLOOM_HTTP_HEADER_TIMEOUT = env_float("GITLOOM_HTTP_HEADER_TIMEOUT", 10.0)
GITLOOM_HTTP_BODY_TIMEOUT = env_float("GITLOOM_HTTP_BODY_TIMEOUT", 60.0)
GITLOOM_HTTP_SEND_TIMEOUT = env_float("GITLOOM_HTTP_SEND_TIMEOUT", 10.0)
# Unanswered or idle connections one client address may hold per web worker; a new
# one beyond it closes that address's longest-waiting one.
GITLOOM_HTTP_CONNECTIONS_PER_CLIENT = env_int("GITLOOM_HTTP_CONNECTIONS_PER_CLIENT", 64)
DATA_UPLOAD_MAX_MEMORY_SIZE = max(GITLOOM_MAX_BODY_BYTES, GITLOOM_MAX_IMPORT_BYTES) + 1024

# --- Object storage ----------------------------------------------------------------
GITLOOM_STORAGE = env_str("GITLOOM_STORAGE", "local")  # "local" or "s3"
GITLOOM_S3_BUCKET = env_str("GITLOOM_S3_BUCKET")
GITLOOM_S3_ENDPOINT_URL = env_str("GITLOOM_S3_ENDPOINT_URL") or None
GITLOOM_S3_PREFIX = env_str("GITLOOM_S3_PREFIX")
# boto3's own variables; credentials are left to boto3's usual chain.
GITLOOM_S3_REGION = env_str("AWS_DEFAULT_REGION") or env_str("AWS_REGION") or None

# --- Models ------------------------------------------------------------------------
# Extraction: any OpenAI-compatible chat endpoint; unset means the offline extractor.
GITLOOM_LLM_BASE_URL = env_str("GITLOOM_LLM_BASE_URL")
GITLOOM_LLM_API_KEY = env_str("GITLOOM_LLM_API_KEY")
GITLOOM_LLM_MODEL = env_str("GITLOOM_LLM_MODEL")
GITLOOM_LLM_TIMEOUT = env_float("GITLOOM_LLM_TIMEOUT", 60.0)  # seconds per HTTP request
# Retries of one call after 429, 5xx, timeouts and connection errors.
GITLOOM_LLM_MAX_RETRIES = env_int("GITLOOM_LLM_MAX_RETRIES", 4)
# Re-asks after output that is not the JSON asked for.
GITLOOM_LLM_INVALID_RETRIES = env_int("GITLOOM_LLM_INVALID_RETRIES", 2)
# Multiplies every wait between retries (backoff 0.5 s, 1 s, 2 s ... or Retry-After).
GITLOOM_LLM_BACKOFF_SCALE = env_float("GITLOOM_LLM_BACKOFF_SCALE", 1.0)
GITLOOM_LLM_MAX_WAIT = env_float("GITLOOM_LLM_MAX_WAIT", 30.0)  # cap on one wait, seconds
# "json_object", or "json_schema" for endpoints that enforce a schema.
GITLOOM_LLM_RESPONSE_FORMAT = env_str("GITLOOM_LLM_RESPONSE_FORMAT", "json_object")
# Sent only when set (reasoning models refuse a temperature).
GITLOOM_LLM_TEMPERATURE = env_optional_float("GITLOOM_LLM_TEMPERATURE")
GITLOOM_LLM_MAX_TOKENS = env_optional_int("GITLOOM_LLM_MAX_TOKENS")
# Transcript characters per extraction call (one call for a normal job).
GITLOOM_EXTRACT_CHUNK_CHARS = env_int("GITLOOM_EXTRACT_CHUNK_CHARS", 24000)
# Embeddings: "local" (MiniLM, offline) or an OpenAI-compatible endpoint.
GITLOOM_EMBEDDING_BACKEND = env_str("GITLOOM_EMBEDDING_BACKEND", "local")
GITLOOM_EMBEDDING_MODEL = env_str("GITLOOM_EMBEDDING_MODEL", "all-MiniLM-L6-v2")
GITLOOM_EMBEDDING_BASE_URL = env_str("GITLOOM_EMBEDDING_BASE_URL")
GITLOOM_EMBEDDING_API_KEY = env_str("GITLOOM_EMBEDDING_API_KEY")
GITLOOM_EMBEDDING_DIMENSIONS = env_int("GITLOOM_EMBEDDING_DIMENSIONS", 384)
# How the local model runs: "onnx" (an ONNX graph of the same weights, written once
# under GITLOOM_DATA_DIR/models without torch) or "torch" (needs requirements-dev.txt).
GITLOOM_EMBEDDING_RUNTIME = env_str("GITLOOM_EMBEDDING_RUNTIME", "onnx")
# Intra-op threads per process for the local model (README says why the default is 1).
GITLOOM_EMBEDDING_THREADS = env_int("GITLOOM_EMBEDDING_THREADS", 1)
# Queries (not cues) embedded by an int8 copy of the ONNX model's linear layers 1-5:
# ~0.55x the time; kept per process only where it agrees with the float model to a
# cosine of 0.99 (retrieval/embeddings.py).
GITLOOM_EMBEDDING_QUERY_INT8 = env_bool("GITLOOM_EMBEDDING_QUERY_INT8", True)
# Query vectors each process keeps (least recently used go first); 0 turns it off.
GITLOOM_EMBEDDING_QUERY_CACHE = env_int("GITLOOM_EMBEDDING_QUERY_CACHE", 1024)

# --- Retrieval ---------------------------------------------------------------------
# Ageing: per-tier half-lives in days, JSON, e.g. '{"events": 60, "working": 1}'; a
# tier left out keeps its default (facts never fade; see docs/design/retrieval.md).
GITLOOM_TIER_HALF_LIFE_DAYS = json.loads(env_str("GITLOOM_TIER_HALF_LIFE_DAYS", "{}"))

# --- Queue -------------------------------------------------------------------------
GITLOOM_WORKERS = env_int("GITLOOM_WORKERS", 2)
# Run queued jobs inline (tests of the API without a worker cluster).
GITLOOM_QUEUE_SYNC = env_bool("GITLOOM_QUEUE_SYNC", False)
# Starts after which a job that never finishes (its worker keeps dying or timing out)
# is failed with `job_attempts_exhausted`, so the namespace's later jobs can run.
GITLOOM_JOB_MAX_ATTEMPTS = env_int("GITLOOM_JOB_MAX_ATTEMPTS", 3)
# Seconds a job may run before its worker is stopped.
GITLOOM_JOB_TIMEOUT = env_int("GITLOOM_JOB_TIMEOUT", 600)
# Changed memory files the indexer applies per transaction when a commit changes more
# (a large import): a job stops between two such steps once half its timeout is spent
# and goes on in its next run, so no import outlasts the timeout (retrieval/indexer.py).
GITLOOM_INDEX_STEP_FILES = env_int("GITLOOM_INDEX_STEP_FILES", 1000)
# Seconds after which a job no worker finished is handed out again (above the timeout).
GITLOOM_JOB_RETRY = env_int("GITLOOM_JOB_RETRY", 720)
# A job queued (not started) longer than this many seconds makes serve log that the
# queue looks stuck (checked every 30 s).
GITLOOM_QUEUE_STUCK_SECONDS = env_float("GITLOOM_QUEUE_STUCK_SECONDS", 120.0)
Q_CLUSTER = {
    "name": "gitloom",
    "orm": "default",
    "workers": GITLOOM_WORKERS,
    "timeout": GITLOOM_JOB_TIMEOUT,
    "retry": GITLOOM_JOB_RETRY,
    "max_attempts": 0,
    "catch_up": False,
    "ack_failures": True,
    "poll": 0.2,
    "label": "Queue",
}

# --- Health and metrics (docs/design/operations.md) ------------------------------------
# /metrics answers only a request bearing this token (Prometheus's `authorization`
# scrape setting); unset, /metrics is 404. Set, every web and queue process writes its
# samples under <data dir>/metrics (prometheus-client's multiprocess mode, which must be
# chosen before the first metric exists, so here) and a scrape sums them.
GITLOOM_METRICS_TOKEN = env_str("GITLOOM_METRICS_TOKEN", "")
if GITLOOM_METRICS_TOKEN and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    (GITLOOM_DATA_DIR / "metrics").mkdir(parents=True, exist_ok=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(GITLOOM_DATA_DIR / "metrics")
# OpenTelemetry traces of retrievals and jobs (gitloom/core/tracing.py; needs
# requirements-otel.txt): "otlp" (where the standard OTEL_EXPORTER_OTLP_* variables
# say) or "console" (stderr); empty: none.
GITLOOM_OTEL_EXPORTER = env_str("GITLOOM_OTEL_EXPORTER", "")
if GITLOOM_OTEL_EXPORTER not in ("", "otlp", "console"):
    raise ImproperlyConfigured("GITLOOM_OTEL_EXPORTER must be otlp, console or empty.")
# /readyz counts the queue ready while a queue process has used its database connection
# within this many seconds (each polls every 0.2 s).
GITLOOM_READY_QUEUE_SECONDS = env_float("GITLOOM_READY_QUEUE_SECONDS", 15.0)

# --- Webhooks (accounts/webhooks, docs/API.md "Webhooks") ------------------------------
# Deliveries run on a queue of their own (django-q2 cluster "gitloom-webhooks") with
# this many workers, started beside the jobs' by qcluster / serve.
# Two by default: a receiver that answers slowly holds one worker for at most one
# attempt's deadline (below), and another account's deliveries go out on the other.
GITLOOM_WEBHOOK_WORKERS = env_int("GITLOOM_WEBHOOK_WORKERS", 2)
# Attempts per delivery; the waits between them grow 4x from the base, each capped and
# jittered +-20%: 30 s, 2 min, 8 min, 32 min, 2.1 h, 8.5 h, 12 h (~23.5 h in all).
GITLOOM_WEBHOOK_MAX_ATTEMPTS = env_int("GITLOOM_WEBHOOK_MAX_ATTEMPTS", 8)
GITLOOM_WEBHOOK_BACKOFF_BASE = env_float("GITLOOM_WEBHOOK_BACKOFF_BASE", 30.0)
GITLOOM_WEBHOOK_BACKOFF_CAP = env_float("GITLOOM_WEBHOOK_BACKOFF_CAP", 12 * 3600.0)
# An endpoint whose deliveries fail for good (every attempt used) this many times in a
# row, with no delivery succeeding between, is disabled.
GITLOOM_WEBHOOK_DISABLE_AFTER = env_int("GITLOOM_WEBHOOK_DISABLE_AFTER", 5)
GITLOOM_WEBHOOK_CONNECT_TIMEOUT = env_float("GITLOOM_WEBHOOK_CONNECT_TIMEOUT", 5.0)
GITLOOM_WEBHOOK_READ_TIMEOUT = env_float("GITLOOM_WEBHOOK_READ_TIMEOUT", 10.0)
# Seconds one delivery attempt may take in all (connect, send, the whole answer): a
# receiver trickling its answer is cut off here, whatever each read takes.
GITLOOM_WEBHOOK_ATTEMPT_TIMEOUT = env_float("GITLOOM_WEBHOOK_ATTEMPT_TIMEOUT", 15.0)
# Bytes of a receiver's answer read (the rest is dropped unread).
GITLOOM_WEBHOOK_RESPONSE_BYTES = env_int("GITLOOM_WEBHOOK_RESPONSE_BYTES", 4096)
# Local development and tests only: allow http:// URLs and loopback/private addresses.
GITLOOM_WEBHOOK_ALLOW_LOCAL = env_bool("GITLOOM_WEBHOOK_ALLOW_LOCAL", False)

# --- MCP server (`manage.py mcp`) ----------------------------------------------------
# Its tools call the HTTP API at this address, with the caller's API key: over stdio
# the key below (a desktop agent's configuration), over HTTP each request's own.
GITLOOM_API_URL = env_str("GITLOOM_API_URL", "http://127.0.0.1:8000")
GITLOOM_API_KEY = env_str("GITLOOM_API_KEY")

# --- Logging -----------------------------------------------------------------------
# One level for everything when set; unset, GitLoom's own loggers say INFO (a line per
# job) and libraries only WARNING and above.
GITLOOM_LOG_LEVEL = env_str("GITLOOM_LOG_LEVEL").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        # 2026-07-31 12:00:00,123 INFO gitloom.jobs: job ... finished
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": GITLOOM_LOG_LEVEL or "WARNING"},
    "loggers": {
        "django.request": {"handlers": ["console"], "level": "ERROR", "propagate": False},
        **{
            app: {"level": GITLOOM_LOG_LEVEL or "INFO"}
            for app in ("gitloom", "server", "accounts", "namespaces", "memories", "retrieval")
        },
    },
}
