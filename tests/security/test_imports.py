"""Files someone hands the importers (issue 13, item 8), tried as the attack or the accident they are.

import_release: a zip bomb and an over-compressed member are refused before anything is inflated;
manifest or archive paths outside the release, and symbolic links in a release folder, are refused.
Every reader accepts UTF-8 with a byte-order mark (Excel's "CSV UTF-8"). The NCS, NCIMP and
sentence-id importers report a compound's second row with file and line. A file cut short fails;
a variant whose words around its replacement differ from its original's is reported with file and
line, and the public files still import, with those findings as warnings.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from datasets.formats import ncimp, ncimp_scores, ncs, nctti, workbench_json
from datasets.formats.records import InputError
from datasets.models import Compound, Variant
from releases.formats import manifest

FRAME = "variant differs from its original outside the span"
DEMO_JSON = Path(__file__).resolve().parents[2] / "datasets" / "demo" / "demo.json"


def zip_with(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=zipfile.ZIP_DEFLATED)
    return path


def manifest_of(files: dict[str, bytes]) -> bytes:
    listed = [{"path": p, "sha256": hashlib.sha256(d).hexdigest(), "bytes": len(d)} for p, d in files.items()]
    return json.dumps({"version": "9.9.9", "created": "2026-01-01", "files": listed}).encode()


def refuse_to_inflate(monkeypatch):
    def inflate(*args, **kwargs):
        raise AssertionError("a member was decompressed")

    monkeypatch.setattr(manifest, "_read_member", inflate)


# --- import_release ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_zip_bomb_is_refused_before_anything_is_inflated(tmp_path, settings, monkeypatch):
    settings.RELEASE_IMPORT_MAX_MB = 8
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        with archive.open("tidy/pairs.jsonl", "w") as member:
            for _ in range(64):
                member.write(bytes(2**20))  # 64 MiB of zeros: some 64 KB on disk
    assert bomb.stat().st_size < 2**20
    refuse_to_inflate(monkeypatch)
    with pytest.raises(CommandError, match="over the limit of 8388608"):
        call_command("import_release", str(bomb))
    assert Compound.objects.count() == 0


@pytest.mark.django_db
def test_a_member_compressed_like_a_bomb_is_refused_by_its_ratio(tmp_path, monkeypatch):
    archive = zip_with(tmp_path / "ratio.zip", {"manifest.json": b"{}", "tidy/pairs.jsonl": bytes(4 * 2**20)})
    refuse_to_inflate(monkeypatch)
    with pytest.raises(CommandError, match="to 1, over the limit of 200 to 1"):
        call_command("import_release", str(archive))


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["../evil.csv", "/etc/passwd", "EN/../../evil.csv", "C:/evil.csv", "EN\\..\\evil.csv"])
def test_a_manifest_path_outside_the_release_is_refused(tmp_path, path):
    files = {path: b"compound\nx y\n"}
    archive = zip_with(tmp_path / "escape.zip", {"manifest.json": manifest_of(files), "data.csv": b"x"})
    with pytest.raises(CommandError, match="not a relative path inside the release"):
        call_command("import_release", str(archive))


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["../evil.csv", "/tmp/evil.csv"])
def test_an_archive_member_outside_the_release_is_refused(tmp_path, path):
    files = {path: b"compound\nx y\n"}
    archive = zip_with(tmp_path / "escape.zip", {"manifest.json": manifest_of(files), **files})
    with pytest.raises(CommandError, match="not a relative path inside the release"):
        call_command("import_release", str(archive))


@pytest.mark.django_db
def test_a_symbolic_link_in_a_release_folder_is_refused_unread(tmp_path):
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "passwd.csv").symlink_to("/etc/passwd")
    (folder / "manifest.json").write_bytes(manifest_of({"passwd.csv": Path("/etc/passwd").read_bytes()}))
    with pytest.raises(CommandError, match="passwd.csv: a symbolic link"):
        call_command("import_release", str(folder))


# --- a byte-order mark ------------------------------------------------------------------------


def copy_head(source: Path, target: Path, lines: int | None = None, bom: bool = False) -> Path:
    """The first ``lines`` lines of ``source`` (all by default), with a UTF-8 byte-order mark if asked."""
    text = "".join(source.read_text(encoding="utf-8").splitlines(keepends=True)[:lines])
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(("\ufeff" if bom else "") + text, encoding="utf-8")
    return target


def counts(result) -> tuple:
    texts = tuple(c.text for c in result.compounds)
    return texts, len(result.sentences), len(result.paraphrases), len(result.variants), len(result.errors)


PUBLIC_HEADS = {
    "nctti/data_en.tsv": 4,
    "nctti/sentids_en.csv": 4,
    "ncs/en/neutral/P1_sents.csv": 4,
    "ncs/en/neutral/P2_sents.csv": 4,
    "ncimp/PT/neutral.csv": 4,
    "ncimp/human_compositionality_scores.csv": 9,
}
READERS = {
    "nctti": lambda root: nctti.parse_directory(root / "nctti"),
    "ncs": lambda root: ncs.parse_directory(root / "ncs"),
    "ncimp": lambda root: ncimp.parse_directory(root / "ncimp" / "PT", "pt"),
    "ncimp scores": lambda root: ncimp_scores.parse_scores_file(
        root / "ncimp" / "human_compositionality_scores.csv", "en"
    ),
}


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_accepts_utf8_with_a_byte_order_mark(tmp_path, shared_data, reader):
    for name, lines in PUBLIC_HEADS.items():
        copy_head(shared_data / name, tmp_path / "plain" / name, lines)
        copy_head(shared_data / name, tmp_path / "bom" / name, lines, bom=True)
    plain = READERS[reader](tmp_path / "plain")
    assert plain.compounds and counts(READERS[reader](tmp_path / "bom")) == counts(plain)


def test_the_workbench_json_reader_accepts_a_byte_order_mark(tmp_path):
    demo = copy_head(DEMO_JSON, tmp_path / "demo.json", bom=True)
    assert counts(workbench_json.parse_file(demo)) == counts(workbench_json.parse_file(DEMO_JSON))


def _head(source: Path, lines: int) -> str:
    return "".join(source.read_text(encoding="utf-8").splitlines(keepends=True)[:lines])


# --- duplicate rows ---------------------------------------------------------------------------


def repeat_second_row(path: Path, lines: int = 4) -> None:
    head = _head(path, lines).splitlines(keepends=True)
    path.write_text("".join([*head, head[1]]), encoding="utf-8")


@pytest.mark.parametrize(
    ("files", "repeated", "parse", "where"),
    [
        (
            ["ncs/en/neutral/P1_sents.csv"],
            "ncs/en/neutral/P1_sents.csv",
            lambda r: ncs.parse_directory(r / "ncs"),
            "en/neutral/P1_sents.csv:5",
        ),
        (
            ["ncimp/EN/neutral.csv"],
            "ncimp/EN/neutral.csv",
            lambda r: ncimp.parse_directory(r / "ncimp" / "EN", "en"),
            "en/neutral.csv:5",
        ),
        (
            ["nctti/data_en.tsv", "nctti/sentids_en.csv"],
            "nctti/sentids_en.csv",
            lambda r: nctti.parse_directory(r / "nctti"),
            "sentids_en.csv:5",
        ),
    ],
)
def test_a_compound_given_twice_in_a_file_is_an_error_with_file_and_line(
    tmp_path, shared_data, files, repeated, parse, where
):
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(_head(shared_data / name, 4), encoding="utf-8")
    repeat_second_row(tmp_path / repeated)
    with pytest.raises(InputError) as error:
        parse(tmp_path)
    assert where in str(error.value) and "already on line 2" in str(error.value)


# --- a file cut short, and the words around a replacement ----------------------------------------


@pytest.mark.django_db
def test_an_ncs_file_cut_short_fails_and_stores_nothing(tmp_path, shared_data):
    shutil.copytree(shared_data / "ncs" / "en", tmp_path / "ncs" / "en")
    p1 = tmp_path / "ncs" / "en" / "neutral" / "P1_sents.csv"
    data = p1.read_bytes()
    p1.write_bytes(data[: data.rindex(b"This is a") + len("This is an u")])  # cut inside the last row
    with pytest.raises(CommandError, match=r"P1_sents.csv:\d+: .*cut short"):
        call_command("import_ncs", str(tmp_path / "ncs"))
    assert not Variant.objects.filter(text__endswith=" u").exists() and Compound.objects.count() == 0


@pytest.mark.django_db
def test_an_ncimp_file_cut_short_fails(tmp_path, shared_data):
    (tmp_path / "EN").mkdir()
    data = (shared_data / "ncimp" / "EN" / "neutral.csv").read_bytes()
    (tmp_path / "EN" / "neutral.csv").write_bytes(data[: len(data) - 25])
    with pytest.raises(CommandError, match="cut short"):
        call_command("import_ncimp", str(tmp_path / "EN"), "--language", "en")


def test_a_variant_that_changes_words_around_its_replacement_is_reported_with_file_and_line(tmp_path):
    folder = tmp_path / "en" / "neutral"
    folder.mkdir(parents=True)
    (folder / "P1_sents.csv").write_text(
        '"compound","neutral sentence","mwe synonym"\n'
        '"pipe dream","This is a pipe dream","This is an illusion"\n'
        '"eager beaver","This is an eager beaver at work","This is a keen person at home"\n',
        encoding="utf-8",
    )
    result = ncs.parse_directory(tmp_path)
    found = [p for p in result.problems if p.kind == FRAME]
    assert [(p.file, p.line, p.severity) for p in found] == [("en/neutral/P1_sents.csv", 3, "warning")]
    assert "it ends 'at home', where the original ends 'at work'" in found[0].reason
    flagged = [v for v in result.variants if v.flags]
    assert [v.fields["text"] for v in flagged] == ["This is a keen person at home"]


def frame_findings(shared_data: Path) -> list:
    results = [ncs.parse_directory(shared_data / "ncs")]
    results += [ncimp.parse_directory(shared_data / "ncimp" / lang, lang.lower()) for lang in ("EN", "PT")]
    return [p for r in results for p in r.problems if p.kind == FRAME]


def test_the_public_files_import_with_their_frame_findings_as_warnings(shared_data):
    found = frame_findings(shared_data)
    assert {p.severity for p in found} == {"warning"}
    where = {f"{p.file}:{p.line}" for p in found}
    # English NCIMP: "This is nan routine crunching" (a NaN written into four alternative-synonym cells).
    assert "en/neutral.csv:199" in where
    # Portuguese NCS P1: the frame itself rewritten ("Isto é o leite", "Isto é muito tempo", "Este ignorou").
    assert {"pt/neutral/P1_sents.csv:80", "pt/neutral/P1_sents.csv:84", "pt/neutral/P1_sents.csv:177"} <= where
    # No finding in the English NCS files; the rest are Portuguese agreement changes (verbs, adjectives).
    assert not [w for w in where if w.startswith("en/neutral/")]
