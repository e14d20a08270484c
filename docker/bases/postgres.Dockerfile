# PostgreSQL 15 from Debian bookworm, in place of Docker Hub's postgres:15 where Docker Hub cannot be
# reached (scripts/compose_check.sh). It honours what docker/compose.yml asks of the official image:
# POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB on first start, data in /var/lib/postgresql/data
# (the volume), password logins from the network, pg_isready on PATH for the health check.
ARG DEBIAN_IMAGE=workbench-bases/debian:bookworm
FROM ${DEBIAN_IMAGE}

# No cluster at install time: the entry point makes one in the volume on first start.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-common \
    && sed -i 's/^#\?\s*create_main_cluster.*/create_main_cluster = false/' \
        /etc/postgresql-common/createcluster.conf \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/*

ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data \
    LANG=C.UTF-8

COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/bin/sh", "/usr/local/bin/postgres-entrypoint.sh"]
