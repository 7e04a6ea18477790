"""docs/python.md: its analysis session runs as written, and says true things."""
import os

import doc_session


def test_the_session_runs(tools, tmp_path):
    ns = doc_session.run(str(tmp_path), tools.umtgen)
    for made in doc_session.PICTURES:
        with open(tmp_path / made, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        assert os.path.getsize(tmp_path / made) > 10000
    assert ns["trace"].closed  # the session ends by closing its trace


def test_the_pictures_are_committed():
    for name in doc_session.PICTURES.values():
        path = os.path.join(doc_session.ROOT, "docs", name)
        assert os.path.exists(path), f"{path}: run python/tests/doc_session.py"
        assert name in open(doc_session.DOC, encoding="utf-8").read()
