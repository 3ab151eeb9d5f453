# Production image: gunicorn + whitenoise (compressed, hashed static files), with a Chinese
# font for the PDFs.
# (No Docker engine runs on our development machines: this file is parsed in CI, not built.)
FROM python:3.13-slim-bookworm
# Inside the container gunicorn listens on every interface of the container's own network:
# docker-compose.yml publishes no port for it, so only the proxy reaches it.
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VAR_DIR=/app/var GUNICORN_BIND=0.0.0.0:8000
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-noto-cjk libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Every package at the version and hash in the lock (`make lock` refreshes it).
COPY requirements.lock .
RUN pip install --no-cache-dir --require-hashes -r requirements.lock
COPY . .
RUN DEBUG=1 python manage.py collectstatic --noinput
RUN useradd --system --home /app app && mkdir -p /app/var && chown -R app /app/var
USER app
EXPOSE 8000
# Ready while the database answers (GET /readyz; the cache and the font are reported too).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["python", "scripts/readyz-probe"]
# Workers from the CPU count (gunicorn.conf.py; WEB_CONCURRENCY overrides). With several app
# servers, run migrations from one of them only (MIGRATE=0 on the others).
CMD ["sh", "-c", "if [ \"${MIGRATE:-1}\" = 1 ]; then python manage.py migrate --noinput; fi && exec gunicorn -c gunicorn.conf.py guandan_cup.wsgi:application"]
