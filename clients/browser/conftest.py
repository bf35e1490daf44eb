"""The web app under test: `intentmesh up` started once for the session on free ports over a fresh
data folder (as clients/python/tests/conftest.py does), and Debian's Chromium driven by Playwright.

The gateway serves the page built into its binary, the copy CI checks. BROWSER_TESTS_WEB_ROOT=DIR
serves DIR's files instead (INTENTMESH_WEB_ROOT), to test Web/ as edited without a rebuild. The
binaries come from $INTENTMESH_BIN, or else from `swift build --show-bin-path`. UnicornRides' clock
runs 120 times faster, so that a booked ride arrives in seconds. Every test saves a screenshot of the
page as it ends in artifacts/browser/<test>.png.
"""
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request

import pytest
from playwright.sync_api import sync_playwright

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ARTIFACTS = os.path.join(REPO, "artifacts", "browser")

#: UnicornRides' clock speed (UNICORNRIDES_CLOCK_SPEED): a short ride takes ≈ 3.6 s.
RIDE_CLOCK_SPEED = 120

#: How long the page may take for one step (a conversation turn, a live update), in milliseconds.
STEP_TIMEOUT_MS = 15_000


def binary_directory():
    configured = os.environ.get("INTENTMESH_BIN", "").strip()
    if configured:
        return configured
    shown = subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    if shown.returncode != 0:
        pytest.exit(f"set INTENTMESH_BIN: `swift build --show-bin-path` failed: {shown.stderr}", returncode=2)
    return shown.stdout.strip()


class Stack:
    """A running `intentmesh up`: the web app's URL as it printed it (with this run's secret for
    development tokens in its fragment, `#dev=…`), the URL without it, and the log."""

    def __init__(self, web_url, log_path):
        self.web_url = web_url
        self.log_path = log_path

    @property
    def base_url(self):
        return self.web_url.split("#", 1)[0] if self.web_url else None

    def log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            return log.read()


@pytest.fixture(scope="session")
def stack(tmp_path_factory):
    executable = os.path.join(binary_directory(), "intentmesh")
    if not os.access(executable, os.X_OK):
        pytest.exit(f"no intentmesh executable at {executable} (set INTENTMESH_BIN or build first)", returncode=2)
    data = tmp_path_factory.mktemp("intentmesh-data")
    log_path = os.path.join(str(data), "up.log")
    environment = dict(os.environ, UNICORNRIDES_CLOCK_SPEED=str(RIDE_CLOCK_SPEED))
    environment.pop("INTENTMESH_WEB_ROOT", None)
    web_root = os.environ.get("BROWSER_TESTS_WEB_ROOT", "").strip()
    if web_root:
        environment["INTENTMESH_WEB_ROOT"] = os.path.abspath(web_root)
    with open(log_path, "w") as log:
        # From the repository: `intentmesh up` starts UnicornFit (Python) from Services/Workouts.
        process = subprocess.Popen(
            [executable, "up", "--port", "0", "--data", str(data)],
            cwd=REPO, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=environment,
        )
    running = Stack(None, log_path)
    deadline = time.monotonic() + 60
    while "Ctrl-C stops everything" not in running.log():
        if process.poll() is not None:
            pytest.exit(f"intentmesh up exited with {process.returncode}:\n{running.log()}", returncode=3)
        if time.monotonic() > deadline:
            process.kill()
            pytest.exit(f"intentmesh up did not come up within 60 s:\n{running.log()}", returncode=3)
        time.sleep(0.05)
    found = re.search(r"^  web app\s+(http://\S+)\s*$", running.log(), re.MULTILINE)
    try:
        if not found:
            pytest.exit(f"no web app address in the output of intentmesh up:\n{running.log()}", returncode=3)
        running.web_url = found.group(1)
        with urllib.request.urlopen(running.web_url, timeout=10) as answer:
            index = answer.read().decode("utf-8", "replace")
        if 'src="app.js"' not in index:
            pytest.exit(
                "the gateway serves a page without the web app (a binary built before scripts/generate-web?): "
                "rebuild, or set BROWSER_TESTS_WEB_ROOT=Web to serve Web/ from disk", returncode=3)
        yield running
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def browser():
    executable = shutil.which("chromium")
    if not executable:
        pytest.exit("no chromium on PATH: apt-get install chromium (scripts/browser-tests does)", returncode=2)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


class WebApp:
    """The page, what its console said, and the steps the tests take on it."""

    def __init__(self, page, stack):
        self.page = page
        self.stack = stack
        self.console = []  # (type, text) of every console message
        self.page_errors = []  # uncaught exceptions
        page.on("console", lambda message: self.console.append((message.type, message.text)))
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))

    def open(self):
        """Loads the page and waits until it has the gateway's routes."""
        response = self.page.goto(self.stack.web_url)
        self.page.wait_for_selector("#intent-form[data-ready=true]", timeout=STEP_TIMEOUT_MS)
        return response

    def sign_in(self, user="diana"):
        self.page.fill("#sign-in-user", user)
        self.page.click("#sign-in")
        self.page.wait_for_selector(f'#signed-in-as[data-user="{user}"]', timeout=STEP_TIMEOUT_MS)

    def choose(self, app, intent_class):
        self.page.select_option("#app-select", app)
        self.page.select_option("#intent-select", intent_class)

    def ask(self, **parameters):
        """Fills in the intent's parameters by key path and starts the conversation."""
        for key_path, text in parameters.items():
            self.page.fill(f"#param-{key_path}", text)
        self.page.click("#start")

    def wait_for_card(self, stage):
        """The card once it is at `stage` (STAGE_NEEDS_CONFIRMATION, STAGE_DONE, STAGE_FAILED, LIVE)."""
        return self.page.wait_for_selector(f'#result-card[data-stage="{stage}"]', timeout=STEP_TIMEOUT_MS)

    def prompt(self):
        return self.page.wait_for_selector("#prompt", timeout=STEP_TIMEOUT_MS).inner_text()

    def transcript(self):
        return self.page.locator("#transcript li").all_inner_texts()

    def csp_violations(self):
        return self.page.evaluate("window.cspViolations")

    def screenshot(self, name):
        os.makedirs(ARTIFACTS, exist_ok=True)
        path = os.path.join(ARTIFACTS, f"{name}.png")
        self.page.screenshot(path=path, full_page=True)
        return path

    def console_errors(self, expected_statuses=()):
        """Console errors and uncaught exceptions, but for the failed responses a test expects
        (Chromium logs "Failed to load resource: … status of 401" for every non-2xx fetch)."""
        def expected(text):
            return any(f"status of {status}" in text for status in expected_statuses)

        errors = [text for kind, text in self.console if kind == "error" and not expected(text)]
        return errors + [f"uncaught: {error}" for error in self.page_errors]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's report on the test, for the `app` fixture to see whether it failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture
def app(browser, stack, request):
    """The web app in a fresh browser context (no token kept), loaded. When the test fails, the page
    as it was is saved as artifacts/browser/FAILED-<test>.png."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US", timezone_id="Europe/Zurich")
    page = context.new_page()
    page.set_default_timeout(STEP_TIMEOUT_MS)
    # Every content security policy violation, as the page sees it (they are console errors too).
    page.add_init_script(
        "window.cspViolations = [];"
        "document.addEventListener('securitypolicyviolation',"
        " (event) => window.cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`));")
    web_app = WebApp(page, stack)
    web_app.open()
    try:
        yield web_app
    finally:
        report = getattr(request.node, "report_call", None)
        if report is None or report.failed:
            web_app.screenshot("FAILED-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name))
        context.close()
