"""The Data page under AppTest: no silent overwrites, replace
only when ticked, broken saved datasets listed with their problems and a repair, delete only
after a confirmation, path import off when the server is reachable from other machines, the
upload limit stated; and the bound address of .streamlit/config.toml."""
from __future__ import annotations

import html
import tomllib

import pytest
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE
from evalcore.io import workspace

APP = str(ROOT / "app.py")


def _app(timeout=90) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _tiny(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "segments.tsv").write_text("seg_id\tsource\n1\tHola\n2\tAdiós\n", encoding="utf-8")
    (folder / "references.tsv").write_text("seg_id\tref_id\ttext\n1\tA\tHello\n2\tA\tBye\n", encoding="utf-8")
    return folder


def _import(at, path, name, replace=False):
    at.text_input(key="import_path").input(str(path))
    at.text_input(key="save_name").input(name)
    at.checkbox(key="save_replace").set_value(replace)
    at.button(key="do_import").click().run()
    assert not at.exception, [e.message for e in at.exception]
    return html.unescape(" ".join(s.value for s in at.success))  # as the browser shows it


def test_config_binds_to_this_machine_only():
    conf = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert conf["server"]["address"] == "127.0.0.1"
    assert workspace.is_loopback(conf["server"]["address"])


@pytest.mark.parametrize("address, env, allowed", [
    ("127.0.0.1", {}, True), ("localhost", {}, True), ("::1", {}, True), ("127.0.0.2", {}, True),
    ("0.0.0.0", {}, False), ("", {}, False), (None, {}, False), ("192.168.1.20", {}, False),
    ("0.0.0.0", {"EVALCORE_ALLOW_PATH_IMPORT": "1"}, True), ("0.0.0.0", {"EVALCORE_ALLOW_PATH_IMPORT": "yes"}, False),
])
def test_path_import_rule(address, env, allowed):
    assert workspace.path_import_allowed(address, env)[0] is allowed


def test_same_name_imported_twice_is_kept_twice_unless_replace(workspace_home, tmp_path):
    tiny = _tiny(tmp_path / "tiny")
    at = _app()
    assert "Saved as **twice**" in _import(at, tiny, "twice")
    msg = _import(at, tiny, "twice")
    assert "twice-2" in msg and "was taken" in msg
    assert sorted(m["name"] for m in workspace.list_saved()) == ["twice", "twice-2"]
    msg = _import(at, tiny, "twice", replace=True)
    assert "replaced" in msg.lower()
    assert sorted(m["name"] for m in workspace.list_saved()) == ["twice", "twice-2"]


def test_unicode_name_kept(workspace_home, tmp_path):
    at = _app()
    assert "Saved as **日本語_データ**" in _import(at, _tiny(tmp_path / "tiny"), "日本語 データ")
    assert [m["name"] for m in workspace.list_saved()] == ["日本語_データ"]


def test_path_import_off_when_exposed(workspace_home, monkeypatch):
    old = st_config.get_option("server.address")
    monkeypatch.delenv("EVALCORE_ALLOW_PATH_IMPORT", raising=False)
    try:
        st_config.set_option("server.address", "0.0.0.0")
        at = _app()
        assert at.text_input(key="import_path").disabled
        assert any("Path import is off" in c.value for c in at.caption)
        at.button(key="do_import").click().run()  # typed earlier or not: nothing is read
        assert workspace.list_saved() == []
        monkeypatch.setenv("EVALCORE_ALLOW_PATH_IMPORT", "1")
        at = _app()
        assert not at.text_input(key="import_path").disabled
    finally:
        st_config.set_option("server.address", old)


def test_upload_limit_stated():
    at = _app()
    (up,) = [e for e in at.get("file_uploader") if "Files or a zip" in e.proto.label]
    limit = st_config.get_option("server.maxUploadSize")
    assert f"up to {limit} MB" in up.proto.label
    assert "maxUploadSize" in up.proto.help and "zip" in up.proto.help


def test_delete_needs_confirmation(workspace_home):
    from evalcore.io import load_collection

    workspace.save(load_collection(SAMPLE), "victim")
    at = _app()
    at.selectbox(key="delete_choice").set_value("victim").run()
    assert at.button(key="do_delete").disabled  # AppTest, like a browser, cannot click it
    assert [m["name"] for m in workspace.list_saved()] == ["victim"]
    at.checkbox(key="delete_confirm_victim").check().run()
    assert not at.button(key="do_delete").disabled
    at.button(key="do_delete").click().run()
    assert not at.exception
    assert workspace.list_saved() == []


def test_broken_saved_dataset_listed_with_problems_and_repaired(workspace_home):
    from evalcore.io import load_collection

    name = workspace.save(load_collection(SAMPLE), "broken")
    folder = workspace.datasets_dir() / name
    (folder / "meta.json").write_text("{oops", encoding="utf-8")
    at = _app()
    table = next(d.value for d in at.dataframe if "status" in d.value.columns)
    assert table.set_index("name").loc["broken", "status"] == "1 problem(s)"
    assert any("meta.json" in html.unescape(m.value) for m in at.markdown)
    at.button(key="repair_broken").click().run()
    assert not at.exception
    (meta,) = workspace.list_saved()
    assert "broken" not in meta and meta["repaired_at"]


def test_sidebar_lists_the_problems_of_a_tampered_dataset(workspace_home):
    from evalcore.io import load_collection

    name = workspace.save(load_collection(SAMPLE), "tampered")
    (workspace.datasets_dir() / name / "segments.tsv").unlink()
    meta = workspace.list_saved()[0]
    at = AppTest.from_file(APP, default_timeout=90)
    at.session_state["dataset_label"] = f"{name} (saved {meta['saved_at']})"
    at.run()
    assert not at.exception
    errors = html.unescape(" ".join(e.value for e in at.sidebar.error))
    assert "segments.tsv" in errors and "missing" in errors


def test_data_page_lists_every_registered_page():
    """The complete page list (the README shows a selection): every registry entry's title and
    summary, as the page writes them (escaped) on the Data page."""
    from pages.registry import PAGES

    at = _app()
    text = html.unescape(" ".join(m.value for m in at.markdown))
    listed = text.split("**Every page**")[1]
    for p in PAGES:
        assert f"**{p.title}**: {p.summary}" in listed.replace("\\", ""), p.title
