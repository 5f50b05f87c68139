"""A bot's manifest, bot.toml: what is accepted, and what each mistake is told."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.server.manifest import ManifestError, check_built, load_manifest, stale_build

HEAD = 'name = "m"\nversion = "1"\nlanguage = "python"\ngames = ["glory"]\n'


def bot(tmp_path: Path, body: str) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir(exist_ok=True)
    (folder / "bot.toml").write_text(HEAD + body)
    return folder


@pytest.mark.parametrize(
    "body,message",
    [
        ("", "no 'command'"),
        ("command = []\n", "must be a list of strings"),
        ("command = 3\n", "must be a list of strings"),
        ('command = ["python", 3]\n', "must be a list of strings"),
        ('command = ["", "bot.py"]\n', "must be a list of strings"),  # an empty program: the launch failed, unexplained
        ('command = ["python", ""]\n', "must be a list of strings"),
    ],
)
def test_a_bad_command_is_told_what_is_wrong(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ManifestError, match=message):
        load_manifest(bot(tmp_path, body))


@pytest.mark.parametrize(
    "body,message",
    [
        ('comand = ["python", "bot.py"]\n', "unknown key 'comand' \\(did you mean 'command'\\?"),
        ('command = ["python", "bot.py"]\nmatches_per_proces = 50\n', "unknown key 'matches_per_proces' \\(did you mean 'matches_per_process'\\?"),
        ('command = ["python", "bot.py"]\nauthor = "me"\n', "unknown key 'author' \\(the keys are name, version, language, games, command"),
    ],
)
def test_a_misspelt_or_unknown_key_is_refused(tmp_path: Path, body: str, message: str) -> None:
    """A misspelt matches_per_process or language used to be ignored: the bot ran, but not as its author meant."""
    with pytest.raises(ManifestError, match=message):
        load_manifest(bot(tmp_path, body))


def test_values_nested_too_deep_are_refused_not_a_crash(tmp_path: Path) -> None:
    """Arrays nested thousands deep made the TOML parser raise RecursionError: a traceback, and on the ladder a 500."""
    deep = "x = " + "[" * 3000 + "]" * 3000 + "\n"
    with pytest.raises(ManifestError, match="its values nest too deep"):
        load_manifest(bot(tmp_path, 'command = ["python", "bot.py"]\n' + deep))


def test_a_nul_in_the_command_is_refused(tmp_path: Path) -> None:
    """No program can be given it: the launch failed unseen and the bot was reported as never connecting, 20 s later."""
    with pytest.raises(ManifestError, match="holds a NUL character"):
        load_manifest(bot(tmp_path, 'command = ["python", "bot.py", "a\\u0000b"]\n'))


def test_a_command_may_be_a_list_or_one_string_of_words(tmp_path: Path) -> None:
    assert load_manifest(bot(tmp_path, 'command = ["python", "my bot.py"]\n')).command == ("python", "my bot.py")
    assert load_manifest(bot(tmp_path, 'command = "python bot.py"\n')).command == ("python", "bot.py")


def test_a_bot_that_is_a_file_is_told_a_bot_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text(HEAD + 'command = ["python", "bot.py"]\n')
    with pytest.raises(ManifestError, match="not a directory .a bot is a directory with a bot.toml"):
        load_manifest(tmp_path / "bot.toml")


def test_a_manifest_read_from_a_relative_path_names_its_folder_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its path is where the bot runs and what the pool knows it by: the same wherever the referee was started."""
    folder = bot(tmp_path, 'command = ["python", "bot.py"]\n')
    monkeypatch.chdir(tmp_path)
    manifest = load_manifest("bot")
    assert manifest.path == folder.resolve() and manifest.path.is_absolute()
    assert manifest.language == "python"
    (folder / "bot.toml").write_text(HEAD.replace('language = "python"\n', "") + 'command = ["./bot"]\n')
    assert load_manifest("bot").language == "other"  # docs/bots.md: the default


def test_a_manifest_that_is_a_folder_is_told(tmp_path: Path) -> None:
    (tmp_path / "bot" / "bot.toml").mkdir(parents=True)
    with pytest.raises(ManifestError, match="cannot be read"):
        load_manifest(tmp_path / "bot")


@pytest.mark.parametrize(
    "head,message",
    [
        ('games = ["glory", "glory"]\n', "lists 'glory' more than once"),
        ('games = ["glory", "' + "g" * 65 + '"]\n', "at most 64 characters each"),
        ('version = "' + "v" * 65 + '"\n', "at most 64 printable characters"),
        ('version = "1\\u0000"\n', r"printable characters only; it holds '\\x00' \(U\+0000\)"),
        ('version = "1.0\\u202egnp"\n', r"printable characters only; it holds '\\u202e' \(U\+202E\)"),
    ],
)
def test_repeated_games_and_overlong_fields_are_refused(tmp_path: Path, head: str, message: str) -> None:
    """The ladder stores a rating per game and the version in 64 characters: a game twice or a long version gave a 500."""
    folder = tmp_path / "bot"
    folder.mkdir()
    key = head.split(" =")[0]
    body = "".join(line + "\n" for line in HEAD.splitlines() if not line.startswith(key + " ")) + head
    (folder / "bot.toml").write_text(body + 'command = ["python", "bot.py"]\n')
    with pytest.raises(ManifestError, match=message):
        load_manifest(folder)
    (folder / "bot.toml").write_text(HEAD.replace('"1"', '"' + "v" * 64 + '"') + 'command = ["python", "bot.py"]\n')
    assert load_manifest(folder).version == "v" * 64


@pytest.mark.parametrize("name", ["_hidden", ".bot", "-x", "a b", "n" * 65])
def test_a_bad_name_is_told_the_whole_rule(tmp_path: Path, name: str) -> None:
    """The error left out that a name must start with a letter or digit, so '_hidden' seemed to follow it."""
    from ladder.accounts import AccountError, add_user

    folder = bot(tmp_path, 'command = "python bot.py"\n')
    (folder / "bot.toml").write_text((folder / "bot.toml").read_text().replace('name = "m"', f'name = "{name}"'))
    with pytest.raises(ManifestError, match="must start with a letter or digit"):
        load_manifest(folder)
    with pytest.raises(AccountError, match="must start with a letter or digit"):
        add_user(None, name)  # type: ignore[arg-type]  # refused before the database is used


def test_an_unbuilt_bot_with_a_build_script_is_told_the_command_that_builds_it(tmp_path: Path) -> None:
    """"build the bot first" named no command, though the kit's package.json has one: `npm run build`."""
    folder = bot(tmp_path, 'command = ["node", "--enable-source-maps", "dist/main.js"]\n')
    (folder / "package.json").write_text('{"name": "m", "scripts": {"build": "node bundle.mjs main.ts"}}')
    with pytest.raises(ManifestError, match=r"build the bot first \(npm run build\)"):
        check_built(load_manifest(folder))
    for other in ('{"scripts": {"test": "node --test"}}', "not JSON", "[]"):  # no build script: no command to name
        (folder / "package.json").write_text(other)
        with pytest.raises(ManifestError, match=r"build the bot first: a bot cannot"):
            check_built(load_manifest(folder))


def test_a_bot_whose_command_names_a_missing_program_or_script_is_told_to_build_it(tmp_path: Path) -> None:
    """An unbuilt bot (a TypeScript bot before its bundle is made) started, died at once, and only its log said why."""
    folder = bot(tmp_path, 'command = ["node", "--enable-source-maps", "dist/main.js"]\n')
    with pytest.raises(ManifestError, match="names dist/main.js, which is not in the bot's folder .build the bot first"):
        check_built(load_manifest(folder))
    (folder / "dist").mkdir()
    (folder / "dist" / "main.js").write_text("")
    check_built(load_manifest(folder))
    (folder / "bot.toml").write_text(HEAD + 'command = ["./build/bot", "--fast"]\n')
    with pytest.raises(ManifestError, match="names ./build/bot"):
        check_built(load_manifest(folder))
    # Words that are not relative programs or scripts are the interpreter's business: options, modules, absolute paths, a shell's script.
    for command in ('["python", "-m", "mybot.main"]', '["/usr/bin/python3", "-u", "/opt/bot.py"]', '["sh", "-c", "exec node dist/x.js"]'):
        (folder / "bot.toml").write_text(HEAD + f"command = {command}\n")
        check_built(load_manifest(folder))
    (folder / "bot.toml").write_text(HEAD + 'command = ["node", "--import=./missing.js", "dist/main.js"]\n')
    check_built(load_manifest(folder))  # an option's value is the interpreter's business, whatever it ends with


def test_a_misspelt_script_is_told_its_near_name_not_to_build_the_bot(tmp_path: Path) -> None:
    """`command = ["python", "bott.py"]` was told to build the bot first, though a Python script is run as it is."""
    folder = bot(tmp_path, 'command = ["python", "bott.py"]\n')
    (folder / "bot.py").write_text("")
    with pytest.raises(ManifestError, match=r"names bott.py, which is not in the bot's folder \(did you mean bot.py\?\)"):
        check_built(load_manifest(folder))
    (folder / "bot.toml").write_text(HEAD + 'command = ["python", "lib/mian.py"]\n')
    (folder / "lib").mkdir()
    (folder / "lib" / "main.py").write_text("")
    with pytest.raises(ManifestError, match=r"did you mean lib/main.py\?"):
        check_built(load_manifest(folder))
    (folder / "bot.toml").write_text(HEAD + 'command = ["python", "player.py"]\n')  # nothing near: no build to run either
    with pytest.raises(ManifestError, match=r"\(a bot's folder holds every file its command runs\)"):
        check_built(load_manifest(folder))
    # A missing bundle beside its source is still an unbuilt bot: main.ts is not what runs.
    (folder / "bot.toml").write_text(HEAD + 'command = ["node", "main.js"]\n')
    (folder / "main.ts").write_text("")
    with pytest.raises(ManifestError, match=r"names main.js, which is not in the bot's folder \(build the bot first"):
        check_built(load_manifest(folder))


def test_a_command_whose_program_is_not_executable_is_refused_before_it_starts(tmp_path: Path) -> None:
    """The shell's "Permission denied" (exit code 126) was left in the bot's log alone."""
    folder = bot(tmp_path, 'command = ["./bot.py"]\n')
    (folder / "bot.py").write_text("#!/usr/bin/env python3\n")
    with pytest.raises(ManifestError, match=r"runs ./bot.py, which is not executable \(chmod \+x ./bot.py"):
        check_built(load_manifest(folder))
    (folder / "bot.py").chmod(0o755)
    check_built(load_manifest(folder))
    (folder / "bot.toml").write_text(HEAD + 'command = ["python", "./bot.py"]\n')
    (folder / "bot.py").chmod(0o644)
    check_built(load_manifest(folder))  # a script handed to its interpreter need not be executable


def test_a_typescript_bot_edited_since_its_bundle_is_told_to_build_again(tmp_path: Path) -> None:
    """The referee runs dist/main.js: an author who edited bot.ts and played without `npm run build` played the old bot, unwarned."""
    folder = bot(tmp_path, 'command = ["node", "--enable-source-maps", "dist/main.js"]\n')
    (folder / "bot.toml").write_text((folder / "bot.toml").read_text().replace('"python"', '"typescript"'))
    (folder / "lib").mkdir()
    (folder / "dist").mkdir()
    (folder / "node_modules").mkdir()
    sources = [folder / "bot.ts", folder / "lib" / "plan.ts", folder / "bot.test.ts", folder / "node_modules" / "x.ts", folder / "dist" / "main.js"]
    for i, file in enumerate(sources):  # each newer than the one before: the bundle last
        file.write_text("")
        os.utime(file, (1000 + i, 1000 + i))
    assert stale_build(load_manifest(folder)) is None
    os.utime(folder / "lib" / "plan.ts", (2000, 2000))
    os.utime(folder / "bot.ts", (2000, 2000))
    note = stale_build(load_manifest(folder))
    assert note == "m: bot.ts, lib/plan.ts changed after dist/main.js was built, so the old bot plays: build it again (npm run build)"
    # Its tests, its packages and the bundle's own folder are not the bot; nor is a Python bot's anything.
    os.utime(folder / "bot.ts", (1000, 1000))
    os.utime(folder / "lib" / "plan.ts", (1000, 1000))
    for file in sources[2:4]:
        os.utime(file, (3000, 3000))
    assert stale_build(load_manifest(folder)) is None
    (folder / "bot.toml").write_text(HEAD + 'command = ["python", "bot.py"]\n')
    (folder / "bot.py").write_text("")
    os.utime(folder / "bot.ts", (4000, 4000))
    assert stale_build(load_manifest(folder)) is None


PER_PROCESS = "'matches_per_process' must be a whole number from 1 to 1000"


@pytest.mark.parametrize(
    "old,new,message",
    [
        ('name = "m"', "name = ", "not valid TOML"),
        ('name = "m"', 'name = "   "', "'name' must be a non-empty string"),
        ('language = "python"', 'language = "cobol"', "'language' must be one of python, typescript, javascript, other"),
        ('games = ["glory"]', 'games = ["glory", ""]', "'games' must be a non-empty list of game ids"),
        ('games = ["glory"]', "games = []", "'games' must be a non-empty list of game ids"),
        ("command =", "matches_per_process = true\ncommand =", PER_PROCESS),
        ("command =", "matches_per_process = 1001\ncommand =", PER_PROCESS),
        ("command =", "matches_per_process = 2.5\ncommand =", PER_PROCESS),
    ],
    ids=["bad-toml", "blank-name", "unknown-language", "empty-game-id", "no-games", "bool-per-process", "too-many-per-process", "fractional-per-process"],
)
def test_each_bad_value_is_told_not_a_traceback(tmp_path: Path, old: str, new: str, message: str) -> None:
    """Every mistake in bot.toml is a ManifestError saying what to fix: `arena match` prints it, the ladder answers 400."""
    folder = bot(tmp_path, 'command = ["python", "bot.py"]\n')
    text = (folder / "bot.toml").read_text()
    assert old in text
    (folder / "bot.toml").write_text(text.replace(old, new, 1))
    with pytest.raises(ManifestError, match=message):
        load_manifest(folder)


def test_a_manifest_that_is_not_utf8_is_told(tmp_path: Path) -> None:
    folder = bot(tmp_path, 'command = ["python", "bot.py"]\n')
    (folder / "bot.toml").write_bytes((folder / "bot.toml").read_bytes() + b'# caf\xe9\n')  # Latin-1, as an old editor saves it
    with pytest.raises(ManifestError, match="not valid TOML"):
        load_manifest(folder)
