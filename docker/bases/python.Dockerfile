# Python 3.11 on Debian bookworm, in place of Docker Hub's python:3.11-slim-bookworm where Docker Hub
# cannot be reached (scripts/compose_check.sh builds it on a debootstrap root file system). Debian's
# python3 is 3.11; a virtual environment on PATH gives `python` and `pip` as the official image does.
# extra-ca/ holds the site's own certificate authorities (a TLS-inspecting proxy's, say; the script
# copies the build host's from /usr/local/share/ca-certificates): Debian's trust store takes them, and
# pip is pointed at that store, since it otherwise trusts only the bundle it ships.
ARG DEBIAN_IMAGE=workbench-bases/debian:bookworm
FROM ${DEBIAN_IMAGE}

ENV LANG=C.UTF-8 \
    PATH=/opt/python/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt

COPY extra-ca/ /usr/local/share/ca-certificates/

RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3 python3-venv ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && update-ca-certificates \
    && python3 -m venv /opt/python

CMD ["python3"]
