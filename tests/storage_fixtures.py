"""An S3-compatible store for tests: moto's server mode, a real HTTP S3 endpoint on a free loopback port.

``s3_endpoint`` (one per test session, so one per xdist worker) serves S3 at ``http://127.0.0.1:PORT``
from a thread of this process: what reaches it goes over HTTP, signed by boto3, as with AWS, MinIO or
Ceph. ``s3_storage`` makes a new bucket and points ``STORAGES["default"]`` at it (django-storages'
``S3Storage``, path-style addressing, no overwriting, made-up keys that moto accepts), with ``MEDIA_ROOT`` an empty folder that a test
checks stays empty. The ``settings`` override sends ``setting_changed``, whose handler
(``django.test.signals.storages_changed``) drops the cached ``storages`` backends and the object
``default_storage`` wraps: every module that imported ``default_storage`` then reaches the bucket.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

S3_BACKEND = "storages.backends.s3.S3Storage"
REGION = "us-east-1"
KEYS = {"access_key": "workbench-test", "secret_key": "workbench-test-secret"}


@dataclass
class S3Store:
    """The bucket a test's default storage writes to, seen from outside Django (boto3), and the empty media folder."""

    client: Any
    bucket: str
    media_root: Path

    def keys(self) -> list[str]:
        listing = self.client.list_objects_v2(Bucket=self.bucket)
        return sorted(item["Key"] for item in listing.get("Contents", []))

    def put(self, key: str, data: bytes) -> None:
        self.client.put_object(Bucket=self.bucket, Key=key, Body=data)

    def get(self, key: str) -> bytes:
        return self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read()

    def local_files(self) -> list[Path]:
        """Everything under MEDIA_ROOT: nothing, while the uploads live in the bucket."""
        return sorted(self.media_root.rglob("*"))


@pytest.fixture(scope="session")
def s3_endpoint():
    """moto's S3 over HTTP on 127.0.0.1 and a port the system picked; its URL."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3_storage(s3_endpoint, settings, tmp_path) -> S3Store:
    """A new bucket as ``STORAGES["default"]``, and ``MEDIA_ROOT`` an empty folder."""
    import boto3

    bucket = f"workbench-{uuid.uuid4().hex[:16]}"
    client = boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        region_name=REGION,
        aws_access_key_id=KEYS["access_key"],
        aws_secret_access_key=KEYS["secret_key"],
    )
    client.create_bucket(Bucket=bucket)
    media_root = tmp_path / "media"
    media_root.mkdir()
    options = {
        "bucket_name": bucket,
        "endpoint_url": s3_endpoint,
        "region_name": REGION,
        "addressing_style": "path",
        # As on the local disk: a second upload of corpus.txt gets a free name, never replaces the first.
        "file_overwrite": False,
        **KEYS,
    }
    settings.MEDIA_ROOT = media_root
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": S3_BACKEND, "OPTIONS": options}}
    return S3Store(client, bucket, media_root)
