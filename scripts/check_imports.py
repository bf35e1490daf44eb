#!/usr/bin/env python3
"""Report imports that a Swift file in Sources/ (or Services/*/main.swift) does not use.

With InternalImportsByDefault and MemberImportVisibility a file must import every module whose
declarations *or members* it uses. This approximates that without a type checker, erring to "used":

1. Each imported module's symbol graph is extracted from the built .swiftmodule with
   swift-symbolgraph-extract (package access, SPI, extensions such as `NIOCore@Swift`, and
   `@_exported` modules included). Its *names*: the last path component of every symbol it
   declares (argument labels dropped), minus every name the standard library declares. Its
   *member names*: those of its members and extension members, stdlib names included.
2. An import of M in a file is used iff the file's code (comments, string contents and import
   lines removed; `\\( ... )` interpolations kept) has a token that is one of M's names or M
   itself (`M.Thing`), or a `.name` / `.name(` member access that is one of M's member names
   (`clock.now()` needs the module declaring `now()`, even though the stdlib declares one too).
3. Never reported: imports inside `#if` blocks (platform choices), `@testable` imports, ALWAYS_USED
   modules, modules that cannot be extracted or are older than their sources.

Names are cached in ${TMPDIR:-/tmp}/intentmesh-check-imports/<hash of toolchain and .swiftmodule
mtimes>/<module>.json, so only the first run after a build pays for the extraction.

Usage: check_imports.py [--bin-path .build/debug] [--list-modules] [--fix] [FILE...]
Prints `path:line: unused import of M` per finding and exits 1 if any; --fix deletes those lines.
"""
import argparse, hashlib, json, os, re, shutil, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE_VERSION = "1"
STDLIB = ("Swift", "_Concurrency")
# Never reported, because their symbol graph does not describe everything an import provides:
ALWAYS_USED = {
    "Swift", "_Concurrency",  # implicit anyway; `@_spi(...) import Swift` is for SPI names
    "Glibc", "Musl", "Darwin", "SwiftGlibc",  # the C library: graphs omit many macros/functions
    "Dispatch",  # its C part (CDispatch) is not in the graph either
}
# `@_exported` re-exports that -experimental-allowed-reexported-modules does not fold in
# (swift-corelibs-foundation re-exports Glibc on Linux; Glibc re-exports the SwiftGlibc C module).
EXTRA_REEXPORTS = {"Foundation": ["Glibc"]}
IMPORT_RE = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(\w+)"
)
TOKEN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[-/=+!*%<>&|^~?]+")
STRING_START = re.compile(r'(#*)("""|")')
# Words that cannot name a declaration, unless after `.` or in backticks.
KEYWORDS = set("""associatedtype class deinit enum extension fileprivate func import init inout internal let
open operator private precedencegroup protocol public rethrows static struct subscript typealias var break
case catch continue default defer do else fallthrough for guard if in repeat return throw switch where while
as false is nil self Self super throws true try await async package some any get set willSet didSet mutating
nonmutating override lazy weak unowned final required convenience dynamic optional indirect consuming
borrowing sending nonisolated isolated each macro actor""".split())
BUILD_OUTPUTS = {".o", ".d", ".dia", ".priors"}  # what the compiler writes per module build
# Members every type may have: `x.init(...)` or `.self` is no evidence of any module.
UNIVERSAL_MEMBERS = {"init", "deinit", "self", "Type", "Protocol", "subscript"}


# A declaration with the `package` modifier (attributes and other modifiers may come first).
PACKAGE_DECLARATION_RE = re.compile(r"^[ \t]*(?:@[\w.]+(?:\([^)\n]*\))?[ \t]+)*(?:\w+[ \t]+)*?package[ \t]+(?!import\b)", re.M)


def strip_code(src: str) -> str:
    """Blank comments and string literal contents (keeping newlines and interpolated code)."""
    out: list[str] = []
    stack: list[list] = []  # ["str", hashes, multiline] or ["interp", open parens]
    i, n = 0, len(src)
    blank = lambda s: re.sub(r"[^\n]", " ", s)
    while i < n:
        top = stack[-1] if stack else None
        if top and top[0] == "str":
            hashes, close = "#" * top[1], ('"""' if top[2] else '"') + "#" * top[1]
            if src.startswith("\\" + hashes + "(", i):  # interpolation: code until its `)`
                out.append(" " * (len(hashes) + 1) + "(")
                i += len(hashes) + 2
                stack.append(["interp", 0])
            elif src.startswith("\\" + hashes, i):  # an escaped character
                out.append(blank(src[i:i + len(hashes) + 2]))
                i += len(hashes) + 2
            elif src.startswith(close, i):
                out.append(" " * len(close))
                i, _ = i + len(close), stack.pop()
            else:
                out.append("\n" if src[i] == "\n" else " ")
                i += 1
            continue
        if src.startswith("//", i):
            j = n if src.find("\n", i) < 0 else src.find("\n", i)
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            depth, j = 0, i
            while j < n:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                    if depth == 0:
                        break
                else:
                    j += 1
            out.append(blank(src[i:j]))
            i = j
        elif m := STRING_START.match(src, i):
            stack.append(["str", len(m.group(1)), m.group(2) == '"""'])
            out.append(" " * len(m.group(0)))
            i = m.end()
        else:
            c = src[i]
            if top and c in "()":
                top[1] += 1 if c == "(" else -1
                if top[1] < 0:
                    stack.pop()
            out.append(c)
            i += 1
    if stack:
        raise ValueError("unterminated string literal")
    return "".join(out)


TEXTS: dict[Path, str] = {}  # each file's text, read once (by parse)


def parse(path: Path) -> tuple[list[tuple[int, str]], set[str], set[str]]:
    """Top-level imports (line, module) outside #if blocks; the code's tokens; its `.member` names."""
    try:
        TEXTS[path] = path.read_text(encoding="utf-8")
        lines = strip_code(TEXTS[path]).split("\n")
    except (OSError, ValueError) as error:  # gone, or a regex literal: skip the file rather than guess
        print(f"warning: {path}: {error}, not checked", file=sys.stderr)
        return [], set(), set()
    imports, depth = [], 0
    for number, line in enumerate(lines, 1):
        directive = re.match(r"\s*#(if|elseif|else|endif)\b", line)
        depth += {"if": 1, "endif": -1}.get(directive.group(1), 0) if directive else 0
        if directive:  # `#if canImport(M)` uses nothing
            lines[number - 1] = ""
        elif m := IMPORT_RE.match(line):
            if depth == 0 and "@testable" not in line:
                imports.append((number, m.group(1)))
            lines[number - 1] = ""
    code = "\n".join(lines)
    dotted = set(re.findall(r"\.\s*`?([A-Za-z_]\w*)", code))  # members and implicit members
    quoted = set(re.findall(r"`(\w+)`", code))
    return imports, (set(TOKEN_RE.findall(code)) - KEYWORDS) | dotted | quoted, dotted


def symbol_names(graph_dir: Path) -> dict[str, list[str]]:
    """All names the graphs declare, and those of members (declared here, not synthesized)."""
    names, members = set(), set()
    for graph in graph_dir.glob("*.symbols.json"):
        for symbol in json.loads(graph.read_text())["symbols"]:
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                continue  # inherited from a protocol extension: declared by that protocol's module
            path = symbol["pathComponents"]
            name = path[-1].split("(")[0] or path[-1]
            names.add(name)
            if len(path) > 1 or "@" in graph.name:
                members.add(name)
    return {"names": sorted(names), "members": sorted(members)}


class Extractor:
    def __init__(self, bin_path: Path):
        self.modules = bin_path / "Modules"
        if not any(self.modules.glob("*.swiftmodule")):
            sys.exit(f"error: no built modules in {self.modules}; run `swift build` first")
        swift = Path(shutil.which("swift") or sys.exit("error: swift not in PATH")).resolve()
        self.tool = swift.parent / "swift-symbolgraph-extract"
        built = sorted(self.modules.glob("*.swiftmodule"))
        toolchain = [p.name.split(".")[0] for p in (swift.parent.parent / "lib/swift/linux").glob("*.swiftmodule")]
        key = hashlib.sha256(f"{CACHE_VERSION} {swift}".encode())
        for p in built:
            key.update(f"{p.name} {p.stat().st_mtime_ns}\n".encode())
        self.cache = Path(os.environ.get("TMPDIR", "/tmp")) / "intentmesh-check-imports" / key.hexdigest()[:16]
        self.cache.mkdir(parents=True, exist_ok=True)
        reexportable = [p.name.split(".")[0] for p in built] + toolchain + ["SwiftGlibc", "CDispatch"]
        # C modules: module maps SwiftPM generates in the bin path, and those in source trees.
        checkouts = next((d / "checkouts" for d in [bin_path.resolve(), *bin_path.resolve().parents]
                          if (d / "checkouts").is_dir()), ROOT / ".build/checkouts")
        maps = [m for m in bin_path.glob("*.build/module.modulemap") if not m.parent.name.endswith("-tool.build")]
        maps += [*checkouts.glob("*/Sources/*/include/module.modulemap"), *ROOT.glob("Sources/*/module.modulemap"),
                 *ROOT.glob("Sources/*/include/module.modulemap")]
        self.flags = ["-I", str(self.modules), "-target", f"{os.uname().machine}-unknown-linux-gnu",
                      "-minimum-access-level", "package", "-include-spi-symbols",
                      "-module-cache-path", str(self.cache / "clang"),
                      "-experimental-allowed-reexported-modules=" + ",".join(reexportable)]
        self.flags += [f for m in maps for f in ("-Xcc", f"-fmodule-map-file={m}")]

    def names(self, module: str) -> dict[str, set[str]] | None:
        """What `module` declares (None if it cannot be extracted), cached."""
        cached = self.cache / f"{module}.json"
        if not cached.exists():
            with tempfile.TemporaryDirectory() as out:
                run = subprocess.run([str(self.tool), "-module-name", module, "-output-dir", out, *self.flags],
                                     capture_output=True, text=True)
                names = symbol_names(Path(out)) if run.returncode == 0 else None
            cached.write_text(json.dumps(names))
        names = json.loads(cached.read_text())
        if names is None:
            print(f"warning: cannot extract module {module} (not built?), treating it as used", file=sys.stderr)
            return None
        return {k: set(v) for k, v in names.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin-path", type=Path, default=ROOT / ".build/debug")
    parser.add_argument("--list-modules", action="store_true", help="show the extracted modules and names")
    parser.add_argument("--fix", action="store_true", help="delete unused import lines in place")
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args()
    files = args.files or sorted([*ROOT.glob("Sources/**/*.swift"), *ROOT.glob("Services/*/main.swift")])
    parsed = {f: parse(f) for f in files}
    imported = {m for imports, _, _ in parsed.values() for _, m in imports}
    extractor = Extractor(args.bin_path)
    wanted = sorted((imported - ALWAYS_USED) | set(STDLIB) | {r for m in imported for r in EXTRA_REEXPORTS.get(m, [])})
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        extracted = dict(zip(wanted, pool.map(extractor.names, wanted)))
    stdlib = set().union(*(extracted[m]["names"] for m in STDLIB if extracted[m]))
    specific, members = {}, {}  # module -> names only it declares; -> names of its members
    for m in sorted(imported - ALWAYS_USED):
        graphs = [g for g in [extracted[m]] + [extracted[r] for r in EXTRA_REEXPORTS.get(m, [])] if g]
        # A module of this package built before its sources last changed may lack new names. (The
        # compiler's per-file outputs tell when it last looked: an unchanged .swiftmodule is kept.)
        built = [o.stat().st_mtime for o in args.bin_path.glob(f"{m}.build/*.*") if o.suffix in BUILD_OUTPUTS]
        sources = [s.stat().st_mtime for s in (ROOT / "Sources" / m).rglob("*.swift")]
        if built and sources and max(sources) > max(built):
            print(f"warning: module {m} is older than its sources (build first), treating it as used", file=sys.stderr)
        elif extracted[m]:
            specific[m] = set().union(*(g["names"] for g in graphs)) - stdlib | {m}
            members[m] = set().union(*(g["members"] for g in graphs)) - UNIVERSAL_MEMBERS
    if args.list_modules:
        print(f"cache: {extractor.cache}\nalways used: {', '.join(sorted(ALWAYS_USED))}")
        print(f"standard library: {len(stdlib)} names, not counted as evidence (except members, below)")
        for m in sorted(imported - ALWAYS_USED):
            print(f"{m}: " + (f"{len(specific[m])} names, e.g. {', '.join(sorted(specific[m])[:6])}; "
                              f"{len(members[m])} member names" if m in specific else "not extracted (treated as used)"))
        return 0
    findings: dict[Path, list[tuple[int, str]]] = {}
    for f, (imports, tokens, dotted) in parsed.items():
        for line, m in imports:
            if m in specific and not tokens & specific[m] and not dotted & members[m]:
                findings.setdefault(f, []).append((line, m))
    # A `package import` is needed only where a package declaration shows the module's types; in a
    # file with none it says more than the file does: `internal import` (what --fix writes).
    widened: dict[Path, list[tuple[int, str]]] = {}
    for f in files:
        source = TEXTS.get(f)
        if source is None or PACKAGE_DECLARATION_RE.search(source):
            continue
        for number, line in enumerate(source.split("\n"), 1):
            if m := re.match(r"package import (\w+)\s*$", line):
                widened.setdefault(f, []).append((number, m.group(1)))
    def report(found_by_file, what, rewrite):
        """Prints each finding as `path:line: what`; with --fix, rewrites each file's lines."""
        for f, found in found_by_file.items():
            rel = f.resolve().relative_to(ROOT) if f.resolve().is_relative_to(ROOT) else f
            for line, m in found:
                print(f"{rel}:{line}: {what(m)}")
            if args.fix:
                lines = f.read_text(encoding="utf-8").split("\n")
                rewrite(lines, found)
                f.write_text("\n".join(lines), encoding="utf-8")

    def internal_imports(lines, found):
        for line, _ in found:
            lines[line - 1] = lines[line - 1].replace("package import", "internal import", 1)

    def without_imports(lines, found):
        for line, _ in sorted(found, reverse=True):
            del lines[line - 1]
        if lines and not lines[0].strip():  # the file's first import went: no blank first line
            del lines[0]

    report(widened, lambda m: f"package import of {m} in a file with no package declaration", internal_imports)
    report(findings, lambda m: f"unused import of {m}", without_imports)
    return 1 if findings or widened else 0


if __name__ == "__main__":
    sys.exit(main())
