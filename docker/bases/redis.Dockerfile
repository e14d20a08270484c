# Redis 7 from Debian bookworm, in place of Docker Hub's redis:7 where Docker Hub cannot be reached
# (scripts/compose_check.sh). As the official image: listens on every interface of the container's
# network, protected mode off (only the compose network reaches it), data in /data.
ARG DEBIAN_IMAGE=workbench-bases/debian:bookworm
FROM ${DEBIAN_IMAGE}

RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* \
    && install -d -o redis -g redis /data

WORKDIR /data
EXPOSE 6379
CMD ["setpriv", "--reuid=redis", "--regid=redis", "--init-groups", \
     "redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--dir", "/data"]
