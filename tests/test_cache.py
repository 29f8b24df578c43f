"""The result cache: reused when nothing that matters changed, never when something did,
and never able to break a run (damaged entries, unwritable folders, concurrent writers)."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from pathlib import Path

import pytest

from conftest import run_cli, write_project
from nondet_lint import cache as cache_module
from nondet_lint import engine, fileanalysis
from nondet_lint.config import Config, parse_table

BENCH = "import torch\ntorch.backends.cudnn.benchmark = True\n"
PROJECT = {"train.py": BENCH, "util.py": "import os\nx = 1\n", "pkg/__init__.py": "", "pkg/model.py": "import torch\n"}


@pytest.fixture
def analyzed(monkeypatch):
    """The paths pass 1 actually analyzed (not taken from the cache), per run."""
    seen = []
    real = fileanalysis.analyze_file

    def spy(path, *args, **kwargs):
        seen.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(fileanalysis, "analyze_file", spy)
    return seen


def lint(root: Path, cache_dir: Path, config=None):
    cfg = Config(**parse_table(dict(config or {}), "test"), root=str(root))
    result = engine.run([str(root)], cfg, cache_dir=str(cache_dir))
    return [f.to_dict() for f in result.findings]


def test_second_run_reuses_every_result(tmp_path, analyzed):
    write_project(tmp_path / "p", PROJECT)
    first = lint(tmp_path / "p", tmp_path / "c")
    assert sorted(analyzed) == ["__init__.py", "model.py", "train.py", "util.py"]
    analyzed.clear()
    assert lint(tmp_path / "p", tmp_path / "c") == first
    assert analyzed == []
    assert [f["code"] for f in first] == ["ND201"]


def test_only_the_changed_file_is_analyzed_again(tmp_path, analyzed):
    write_project(tmp_path / "p", PROJECT)
    lint(tmp_path / "p", tmp_path / "c")
    analyzed.clear()
    (tmp_path / "p" / "util.py").write_text(BENCH)
    findings = lint(tmp_path / "p", tmp_path / "c")
    assert analyzed == ["util.py"]
    assert [(Path(f["path"]).name, f["code"]) for f in findings] == [("train.py", "ND201"), ("util.py", "ND201")]


def test_a_file_turning_into_a_package_module_is_analyzed_again(tmp_path, analyzed):
    # the module name (from __init__.py files around it) is part of what pass 1 sees
    write_project(tmp_path / "p", {"lib/a.py": "import os\n"})
    lint(tmp_path / "p", tmp_path / "c")
    (tmp_path / "p" / "lib" / "__init__.py").write_text("")
    analyzed.clear()
    lint(tmp_path / "p", tmp_path / "c")
    assert sorted(analyzed) == ["__init__.py", "a.py"]


def test_config_change_is_a_miss(tmp_path, analyzed):
    write_project(tmp_path / "p", PROJECT)
    assert lint(tmp_path / "p", tmp_path / "c")
    analyzed.clear()
    assert lint(tmp_path / "p", tmp_path / "c", {"ignore": ["ND201"]}) == []
    assert len(analyzed) == 4


def test_extra_rule_file_edit_is_a_miss(tmp_path):
    write_project(tmp_path / "p", {"train.py": "import mylib\nmylib.fast_mode = True\n"})
    rules = tmp_path / "extra.toml"
    rules.write_text('[ND201.data]\nattributes = ["otherlib.fast_mode"]\n')
    config = {"rule-files": [str(rules)]}
    assert lint(tmp_path / "p", tmp_path / "c", config) == []
    rules.write_text('[ND201.data]\nattributes = ["mylib.fast_mode"]\n')
    engine.load_rules.cache_clear()
    assert [f["code"] for f in lint(tmp_path / "p", tmp_path / "c", config)] == ["ND201"]


def test_changed_tool_code_is_a_miss(tmp_path, monkeypatch, analyzed):
    write_project(tmp_path / "p", PROJECT)
    lint(tmp_path / "p", tmp_path / "c")
    monkeypatch.setattr(cache_module, "code_digest", lambda: "another build")
    analyzed.clear()
    lint(tmp_path / "p", tmp_path / "c")
    assert len(analyzed) == 4


def entries(cache_dir: Path):
    """The per-file entries (not the run entries of pass 2)."""
    return sorted(path for path in cache_dir.glob(f"{cache_module.FORMAT}/*/*.json") if not path.name.startswith("run-"))


def read_entry(entry: Path):
    """(the JSON line naming the file, the text of its result)."""
    head, _, result = entry.read_text(encoding="utf-8").partition("\n")
    return json.loads(head), result


def write_entry(entry: Path, head, result: str) -> None:
    """An entry as a hostile checkout could write it: the digest of the result matches."""
    head = {**head, "result": hashlib.blake2b(result.encode("utf-8"), digest_size=16).hexdigest()}
    entry.write_text(json.dumps(head) + "\n" + result, encoding="utf-8")


@pytest.mark.parametrize("damage", [
    b"", b"{not json", b"[]", b'{"path": 1}', b"\x80\x04\x95pickle", "{\"result\": {}}".encode(),
])
def test_damaged_entries_are_misses(tmp_path, damage, analyzed):
    write_project(tmp_path / "p", PROJECT)
    first = lint(tmp_path / "p", tmp_path / "c")
    for entry in entries(tmp_path / "c"):
        entry.write_bytes(damage)
    analyzed.clear()
    assert lint(tmp_path / "p", tmp_path / "c") == first
    assert len(analyzed) == 4


@pytest.mark.parametrize("cut", [1, 20])
def test_a_truncated_entry_is_a_miss(tmp_path, cut, analyzed):
    # the facts are not decoded when an entry is read: the digest of the result catches a
    # cut or damaged one, so that pass 2 never meets text that does not decode
    write_project(tmp_path / "p", {"train.py": BENCH})
    first = lint(tmp_path / "p", tmp_path / "c")
    (entry,) = entries(tmp_path / "c")
    entry.write_bytes(entry.read_bytes()[:-cut])
    analyzed.clear()
    assert lint(tmp_path / "p", tmp_path / "c") == first
    assert analyzed == ["train.py"]


def test_entry_of_other_content_is_not_used(tmp_path, analyzed):
    # an entry whose result was edited (as a hostile checkout could) but whose content
    # digest no longer matches the file is ignored
    write_project(tmp_path / "p", {"train.py": BENCH})
    lint(tmp_path / "p", tmp_path / "c")
    (entry,) = entries(tmp_path / "c")
    head, result = read_entry(entry)
    first_line, _, facts = result.partition("\n")
    edited = {**json.loads(first_line), "findings": []}
    write_entry(entry, {**head, "content": "0" * 40}, json.dumps(edited) + "\n" + facts)
    assert [f["code"] for f in lint(tmp_path / "p", tmp_path / "c")] == ["ND201"]


def test_entries_are_plain_json_lines_with_a_gitignore_and_tag(tmp_path):
    write_project(tmp_path / "p", PROJECT)
    lint(tmp_path / "p", tmp_path / "c")
    found = entries(tmp_path / "c")
    assert len(found) == 4
    for entry in found:
        head, result = read_entry(entry)
        assert set(head) == {"path", "content", "module", "result"}
        first_line, *facts = result.split("\n")
        assert set(json.loads(first_line)) >= {"path", "findings", "deferred", "suppressions"}
        for line in facts if facts != [""] else []:  # a kind of fact, a tab and its JSON form
            key, value = line.split("\t")
            assert key.isidentifier() and isinstance(json.loads(value), dict)
    assert (tmp_path / "c" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (tmp_path / "c" / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert not list((tmp_path / "c").rglob(".tmp-*"))


def test_unwritable_cache_location_does_not_fail_the_run(tmp_path):
    write_project(tmp_path / "p", PROJECT)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert [f["code"] for f in lint(tmp_path / "p", blocker / "cache")] == ["ND201"]


def test_full_disk_while_writing_does_not_fail_the_run(tmp_path, monkeypatch):
    write_project(tmp_path / "p", PROJECT)

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache_module.os, "replace", full)
    assert [f["code"] for f in lint(tmp_path / "p", tmp_path / "c")] == ["ND201"]
    assert entries(tmp_path / "c") == [] and not list((tmp_path / "c").rglob(".tmp-*"))


def test_old_settings_folders_are_pruned(tmp_path, monkeypatch):
    write_project(tmp_path / "p", {"train.py": BENCH})
    for number in range(cache_module.KEEP + 3):
        monkeypatch.setattr(cache_module, "code_digest", lambda n=number: f"build {n}")
        lint(tmp_path / "p", tmp_path / "c")
    assert len(list((tmp_path / "c" / cache_module.FORMAT).iterdir())) == cache_module.KEEP


def _hammer(directory: str, worker: int) -> None:
    cache = cache_module.Cache(directory, "settings")
    for round_ in range(150):
        text = json.dumps({"worker": worker, "round": round_, "pad": "x" * (worker * 5000)})
        cache.put("same.py", "same", False, f"digest{worker}", text)


def test_concurrent_writers_never_leave_a_partial_entry(tmp_path):
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    writers = [context.Process(target=_hammer, args=(str(tmp_path), n)) for n in (1, 2, 3)]
    for process in writers:
        process.start()
    reader = cache_module.Cache(str(tmp_path), "settings")
    seen = set()
    while any(process.is_alive() for process in writers):
        for worker in (1, 2, 3):
            entry = reader.get("same.py", "same", False, f"digest{worker}")
            if entry is not None:  # a complete entry of that writer, or none
                data = json.loads(entry)
                assert data["worker"] == worker and len(data["pad"]) == worker * 5000
                seen.add(worker)
    for process in writers:
        process.join()
        assert process.exitcode == 0
    assert json.loads(read_entry(entries_of(tmp_path)[0])[1])["round"] == 149
    assert not list(tmp_path.rglob(".tmp-*"))


def entries_of(root: Path):
    return entries(root)


# ---- command line ----------------------------------------------------------------------

def test_cli_caches_in_the_project_root_and_no_cache_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv(cache_module.ENV_DIR, raising=False)
    write_project(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n", **PROJECT})
    code, out, _ = run_cli([str(tmp_path), "--no-cache"])
    assert code == 1 and not (tmp_path / ".nondet_lint_cache").exists()
    assert run_cli([str(tmp_path)]) == (code, out, "")
    assert len(entries(tmp_path / ".nondet_lint_cache")) == 4
    assert run_cli([str(tmp_path)]) == (code, out, "")  # warm: the same bytes


def test_cli_cache_location_from_flag_env_and_config(tmp_path, monkeypatch):
    write_project(tmp_path / "p", {"pyproject.toml": "[tool.nondet-lint]\ncache-dir = 'build/lint-cache'\n", **PROJECT})
    monkeypatch.delenv(cache_module.ENV_DIR, raising=False)
    run_cli([str(tmp_path / "p")])
    assert entries(tmp_path / "p" / "build" / "lint-cache")
    monkeypatch.setenv(cache_module.ENV_DIR, str(tmp_path / "from-env"))
    run_cli([str(tmp_path / "p")])
    assert entries(tmp_path / "from-env")
    run_cli([str(tmp_path / "p"), "--cache-dir", str(tmp_path / "from-flag")])
    assert entries(tmp_path / "from-flag")


def test_cli_caches_a_lone_file_in_the_current_folder_not_beside_it(tmp_path, monkeypatch):
    """A file with no project marker above it (a script in /tmp or Downloads): its folder is
    not a project of ours to write into; the cache goes in the current folder, as ruff's."""
    monkeypatch.delenv(cache_module.ENV_DIR, raising=False)
    write_project(tmp_path / "downloads", PROJECT)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    lone = tmp_path / "downloads" / "train.py"
    code, out, _ = run_cli([str(lone)])
    assert code == 1 and out
    assert not (tmp_path / "downloads" / ".nondet_lint_cache").exists()
    assert entries(tmp_path / "work" / ".nondet_lint_cache")
    assert run_cli([str(lone)]) == (code, out, "")  # warm: the same bytes


# ---- pass 2 ------------------------------------------------------------------------------

@pytest.fixture
def decided(monkeypatch):
    """How many times pass 2 ran."""
    calls = []
    real = engine.decide

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "decide", spy)
    return calls


SEEDED = {
    "train.py": "import torch\nfrom common import seed_all\n\ndef main():\n    seed_all(3)\n    return torch.randperm(10)\n\n"
                "if __name__ == '__main__':\n    main()\n",
    "common.py": "import torch\n\ndef seed_all(seed):\n    torch.manual_seed(seed)\n",
}


def test_unchanged_project_skips_pass_2(tmp_path, decided):
    write_project(tmp_path / "p", {**PROJECT, **SEEDED})
    first = lint(tmp_path / "p", tmp_path / "c")
    assert lint(tmp_path / "p", tmp_path / "c") == first
    assert len(decided) == 1


def test_a_change_elsewhere_in_the_project_decides_again(tmp_path, decided):
    # the seed lives in common.py: editing it changes what train.py is told, although
    # train.py itself did not change
    write_project(tmp_path / "p", SEEDED)
    assert lint(tmp_path / "p", tmp_path / "c") == []
    (tmp_path / "p" / "common.py").write_text("import random\n\ndef seed_all(seed):\n    random.seed(seed)\n")
    assert [f["code"] for f in lint(tmp_path / "p", tmp_path / "c")] == ["ND104"]
    assert len(decided) == 2


def test_runs_reporting_other_paths_do_not_share_pass_2(tmp_path):
    write_project(tmp_path / "p", {**PROJECT, "pyproject.toml": "[project]\nname = 'x'\n"})
    cfg = Config(root=str(tmp_path / "p"))
    everything = engine.run([str(tmp_path / "p")], cfg, cache_dir=str(tmp_path / "c")).findings
    only_util = engine.run([str(tmp_path / "p" / "util.py")], cfg, cache_dir=str(tmp_path / "c")).findings
    assert [f.code for f in everything] == ["ND201"] and only_util == []
    assert engine.run([str(tmp_path / "p")], cfg, cache_dir=str(tmp_path / "c")).findings == everything


def test_a_tampered_run_entry_is_ignored(tmp_path, decided):
    write_project(tmp_path / "p", PROJECT)
    first = lint(tmp_path / "p", tmp_path / "c")
    (run_entry,) = (tmp_path / "c").glob(f"{cache_module.FORMAT}/*/run-*.json")
    data = json.loads(run_entry.read_text())
    data["key"] = "0" * 40
    data["findings"] = []
    run_entry.write_text(json.dumps(data))
    assert lint(tmp_path / "p", tmp_path / "c") == first
    assert len(decided) == 2


# ---- rule data snapshot -------------------------------------------------------------------

def test_rule_snapshot_gives_the_rules_the_toml_gives(tmp_path, monkeypatch):
    from nondet_lint import ruledata, rulecache

    snapshot = tmp_path / "rules.json"
    monkeypatch.setattr(rulecache, "_location", lambda texts: str(snapshot))
    parsed = ruledata._parse_bundled(ruledata._bundled_texts())
    assert ruledata._bundled_rules() == parsed and snapshot.exists()  # parsed, then saved
    monkeypatch.setattr(ruledata, "_parse_bundled", lambda texts: pytest.fail("parsed again"))
    assert ruledata._bundled_rules() == parsed  # from the snapshot


@pytest.mark.parametrize("damage", [b"", b"{}", b"[1]", b'[{"code": "ND201"}]'])
def test_damaged_rule_snapshot_is_parsed_again(tmp_path, monkeypatch, damage):
    from nondet_lint import ruledata, rulecache

    snapshot = tmp_path / "rules.json"
    snapshot.write_bytes(damage)
    monkeypatch.setattr(rulecache, "_location", lambda texts: str(snapshot))
    assert ruledata._bundled_rules() == ruledata._parse_bundled(ruledata._bundled_texts())


def test_rule_snapshot_is_named_by_the_rule_texts():
    from nondet_lint import rulecache

    texts = [("a.toml", "x = 1\n")]
    assert rulecache._location(texts) != rulecache._location([("a.toml", "x = 2\n")])
