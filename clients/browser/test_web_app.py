"""The web app the gateway serves at /, in a real Chromium: Diana's conversations as Siri has them
(a disambiguation, a confirmation, a payment, a ride followed live until it arrives), the errors the
gateway answers, and the page's content security policy. Each test saves screenshots in
artifacts/browser/; with BROWSER_TESTS_README_SHOT=1 the finished ride also becomes docs/web-app.png, the
README's picture."""
import os
import re
import shutil
import urllib.request
import uuid

from playwright.sync_api import expect

from conftest import REPO, STEP_TIMEOUT_MS

#: What the gateway sends with every page (Sources/Gateway/Web/WebPages.swift).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)


def test_unicornchat_asks_which_diana_then_sends_after_yes(app):
    page = app.page
    app.sign_in("diana")
    expect(page.locator("#signed-in-as")).to_contain_text("Signed in as diana")
    content = f"Great job on the demo {uuid.uuid4().hex[:6]}"
    app.choose("UnicornChat", "INSendMessageIntent")
    app.ask(recipients="Diana", content=content)

    # "Which Diana?" — one button per contact the name matches.
    assert app.prompt() == "Which Diana?"
    choices = page.locator("[data-test=choice]")
    expect(choices).to_have_text(["Diana Prince", "Diana Ross"])
    app.screenshot("chat-which-diana")
    choices.filter(has_text="Diana Prince").click()

    # "Ready to send it?" — the draft, drawn by UnicornChat, and Yes / No.
    draft = app.wait_for_card("STAGE_NEEDS_CONFIRMATION")
    assert app.prompt() == "Ready to send it?"
    expect(page.locator("#result-card [data-test=response-code]")).to_have_text("ready")
    expect(page.locator('#result-card [data-role="bubble-outgoing-draft"]')).to_have_text(content)
    assert "To: Diana Prince" in draft.inner_text()
    app.screenshot("chat-ready-to-send")
    page.click("#confirm-yes")

    # Sent: the card as UnicornChat draws it, at the size the gateway gave it.
    card = app.wait_for_card("STAGE_DONE")
    expect(page.locator("#result-card [data-test=app-name]")).to_have_text("UnicornChat")
    expect(page.locator("#result-card [data-test=response-code]")).to_have_text("success")
    transcript = page.locator('#result-card [data-test=app-section][data-view-kind="chat-transcript"]')
    expect(transcript.locator('[data-role="bubble-outgoing-sent"]')).to_have_text(content)
    expect(transcript.locator('[data-role="caption"]')).to_have_text("Sent")
    assert transcript.evaluate("section => section.style.width") == "375px"
    assert "siri-snippet" in card.get_attribute("class")
    assert app.transcript()[-1].endswith("Done (success)")
    assert page.locator("#error").is_hidden()
    app.screenshot("chat-sent")
    assert app.console_errors() == []


def test_a_sentence_in_words_becomes_the_intent_then_asks_and_sends_after_yes(app):
    page = app.page
    app.sign_in("diana")
    content = f"see you at the demo {uuid.uuid4().hex[:6]}"
    page.fill("#sentence-input", f"Send a message to Diana on UnicornChat saying {content}")
    page.click("#sentence-ask")

    # What the words were taken to say, then the domain's own question.
    understood = page.locator("[data-test=understood]")
    expect(understood).to_contain_text("UnicornChat · INSendMessageIntent")
    expect(understood).to_contain_text(content)
    assert app.prompt() == "Which Diana?"
    page.locator("[data-test=choice]").filter(has_text="Diana Ross").click()

    draft = app.wait_for_card("STAGE_NEEDS_CONFIRMATION")
    assert "To: Diana Ross" in draft.inner_text()
    expect(page.locator('#result-card [data-role="bubble-outgoing-draft"]')).to_have_text(content)
    page.click("#confirm-yes")
    app.wait_for_card("STAGE_DONE")
    expect(page.locator("#result-card [data-test=response-code]")).to_have_text("success")
    assert app.transcript()[0].endswith(f"Send a message to Diana on UnicornChat saying {content}")
    app.screenshot("words-sent")
    assert app.console_errors() == []


def test_words_no_domain_understands_are_answered_as_such(app):
    page = app.page
    app.sign_in("diana")
    page.fill("#sentence-input", "what is the airspeed of an unladen swallow")
    page.click("#sentence-ask")
    expect(page.locator("#conversation")).to_have_attribute("data-stage", "STAGE_NOT_UNDERSTOOD")
    assert page.locator("[data-test=understood]").count() == 0
    assert page.locator("#result-card [data-test=app-name]").count() == 0
    expect(page.locator('#transcript li[data-speaker="app"]').last).to_contain_text("can't help with that")
    assert page.locator("#error").is_hidden()
    assert app.console_errors() == []


def test_missing_values_are_asked_for_and_no_cancels(app):
    page = app.page
    app.sign_in("diana")
    app.choose("UnicornChat", "INSendMessageIntent")
    app.ask()
    assert app.prompt() == "To whom?"
    page.fill("#answer-input", "Diana")
    page.click("#answer-send")
    expect(page.locator("#prompt")).to_have_text("Which Diana?")
    page.locator("[data-test=choice]", has_text="Diana Ross").click()
    expect(page.locator("#prompt")).to_have_text("What do you want to say to Diana Ross?")
    page.fill("#answer-input", "Rainbow polish at noon")
    page.click("#answer-send")
    expect(page.locator("#prompt")).to_have_text("Ready to send it?")
    expect(page.locator('#result-card [data-role="bubble-outgoing-draft"]')).to_have_text("Rainbow polish at noon")
    page.click("#confirm-no")
    expect(page.locator("#conversation")).to_have_attribute("data-stage", "CANCELLED")
    assert app.transcript()[-2:] == ["YOU\nNo", "UNICORNCHAT\nCancelled."]
    expect(page.locator("#result-card")).to_have_attribute("data-stage", "STAGE_NEEDS_CONFIRMATION")
    app.screenshot("chat-typed-answers-cancelled")
    assert app.console_errors() == []


def test_unicornpay_payment_waits_for_the_users_yes(app):
    page = app.page
    app.sign_in("diana")
    app.choose("UnicornPay", "INSendPaymentIntent")
    app.ask(payee="Buttercup", currencyAmount="5 USD", note="unicorn snacks")

    app.wait_for_card("STAGE_NEEDS_CONFIRMATION")
    assert app.prompt() == "Ready to send it?"
    payment = page.locator('#result-card [data-view-kind="payment-transaction"]')
    expect(payment.locator('[data-role="amount"]')).to_have_text("5.00 USD")
    expect(payment.locator('[data-role="status"]')).to_have_text("draft")
    expect(payment.locator(".view-row").first).to_contain_text("Buttercup")
    app.screenshot("payment-confirm")
    page.click("#confirm-yes")

    app.wait_for_card("STAGE_DONE")
    expect(page.locator("#result-card [data-test=response-code]")).to_have_text("success")
    expect(payment.locator('[data-role="status"]')).to_have_text("completed")
    expect(payment.locator('[data-role="amount"]')).to_have_text("5.00 USD")
    assert page.locator("#error").is_hidden()
    app.screenshot("payment-sent")
    assert app.console_errors() == []


def test_unicornrides_ride_is_redrawn_from_live_updates_until_it_arrives(app):
    page = app.page
    app.sign_in("diana")
    app.choose("UnicornRides", "INRequestRideIntent")
    app.ask(pickupLocation="300 Post Street", dropOffLocation="Moscone West")

    app.wait_for_card("STAGE_NEEDS_CONFIRMATION")
    assert app.prompt() == "Do you want to request it?"
    expect(page.locator('#result-card [data-view-kind="unicorn-ride-header"]')).to_contain_text("Unicorn Ride")
    page.click("#confirm-yes")

    # Booked; then INGetRideStatusIntent's live updates redraw the card (Gateway.Layout of each).
    app.wait_for_card("LIVE")
    expect(page.locator("#live")).to_contain_text("Following INGetRideStatusIntent")
    phases = set()
    header = page.locator('#result-card [data-view-kind="unicorn-ride-header"] [data-role="phase"]')
    for _ in range(200):
        phases.add(header.inner_text(timeout=STEP_TIMEOUT_MS))
        if "Arrived" in phases:
            break
        page.wait_for_timeout(50)
    expect(header).to_have_text("Arrived", timeout=30_000)
    expect(page.locator("#live")).to_have_attribute("data-state", "ended", timeout=STEP_TIMEOUT_MS)
    expect(page.locator("#live")).to_contain_text("Live updates ended after")
    updates = int(page.locator("#live").get_attribute("data-updates"))
    assert updates >= 3, f"only {updates} live updates"
    assert len(phases) >= 2, f"the card was never redrawn between phases: {phases}"
    pins = page.locator("#result-card [data-test=map-pin]").all_text_contents()
    assert {"300 Post Street", "Moscone West", "Your ride"} <= set(pins)
    expect(page.locator('#result-card [data-view-kind="unicorn-ride-driver"]')).to_contain_text("★")
    expect(page.locator("#result-card [data-test=card-live]")).to_contain_text(f"Live update {updates}")
    assert page.locator("#error").is_hidden()
    shot = app.screenshot("ride-arrived")
    if os.environ.get("BROWSER_TESTS_README_SHOT"):  # the README's picture, when asked to renew it
        shutil.copyfile(shot, os.path.join(REPO, "docs", "web-app.png"))
    assert app.console_errors() == []


def test_a_maps_card_leaves_the_pickup_to_the_host(app):
    page = app.page
    app.sign_in("diana")
    app.choose("UnicornRides", "INRequestRideIntent")
    page.select_option("#display-mode", "maps-card")
    app.ask(pickupLocation="300 Post Street", dropOffLocation="Moscone West")
    card = app.wait_for_card("STAGE_NEEDS_CONFIRMATION")
    assert "maps-card" in card.get_attribute("class")
    # In a Maps card UnicornRides declines to draw its map; the host shows the pickup as a default row.
    assert page.locator('#result-card [data-view-kind="unicorn-ride-map"]').count() == 0
    pickup = page.locator('#result-card [data-test=default-section] [data-parameter="pickupLocation"]')
    expect(pickup).to_contain_text("300 Post Street")
    for width in page.locator("#result-card [data-test=app-section]").evaluate_all(
            "sections => sections.map((section) => section.style.width)"):
        assert width == "320px"
    app.screenshot("ride-maps-card")
    page.click("#confirm-no")
    expect(page.locator("#conversation")).to_have_attribute("data-stage", "CANCELLED")
    assert app.console_errors() == []


def test_an_intent_class_no_domain_handles_shows_not_found(app):
    page = app.page
    app.sign_in("diana")
    page.select_option("#app-select", "UnicornChat")
    page.select_option("#intent-select", "custom")
    page.fill("#custom-class", "INFlyToTheMoonIntent")
    page.click("#start")
    expect(page.locator("#error")).to_be_visible()
    expect(page.locator("#error")).to_have_text("not_found: no domain handles INFlyToTheMoonIntent")
    assert page.locator("#result-card").count() == 0
    app.screenshot("error-not-found")
    assert app.console_errors(expected_statuses=(404,)) == []


def test_a_bad_token_shows_unauthenticated(app):
    page = app.page
    page.click(".paste-token summary")
    page.fill("#token-input", "not-a-jwt")
    page.click("#use-token")
    expect(page.locator("#signed-in-as")).to_have_text("Signed in with a token that is not a JWT")
    app.choose("UnicornChat", "INSendMessageIntent")
    app.ask(recipients="Diana Ross", content="hello")
    expect(page.locator("#error")).to_be_visible()
    expect(page.locator("#error")).to_have_text(re.compile(r"^unauthenticated: malformed bearer token"))
    assert page.locator("#result-card").count() == 0
    app.screenshot("error-unauthenticated")
    assert app.console_errors(expected_statuses=(401,)) == []


def test_sign_in_needs_the_address_intentmesh_up_printed(browser, stack):
    """The page opened at the bare address (as anyone reaching the port through a forwarder would)
    gets no development token; the printed address's secret leaves the address bar once kept."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        page = context.new_page()
        page.goto(stack.base_url)
        page.wait_for_selector("#intent-form[data-ready=true]", timeout=STEP_TIMEOUT_MS)
        page.fill("#sign-in-user", "diana")
        page.click("#sign-in")
        expect(page.locator("#error")).to_be_visible()
        expect(page.locator("#error")).to_contain_text("the address `intentmesh up` printed")
        expect(page.locator("#signed-in-as")).to_have_text("Not signed in")
        # The printed address: signed in, and the secret is no longer in the address bar.
        page.goto(stack.web_url)
        page.wait_for_selector("#intent-form[data-ready=true]", timeout=STEP_TIMEOUT_MS)
        assert "#dev=" not in page.url
        page.fill("#sign-in-user", "diana")
        page.click("#sign-in")
        page.wait_for_selector('#signed-in-as[data-user="diana"]', timeout=STEP_TIMEOUT_MS)
    finally:
        context.close()


def test_the_page_keeps_its_content_security_policy_without_console_errors(app, stack):
    page = app.page
    # The page and its modules come with the policy; the markup has no inline script or style.
    for name in ("", "app.js", "style.css"):
        with urllib.request.urlopen(stack.base_url + name, timeout=10) as answer:
            assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY, name
            assert answer.headers["x-content-type-options"] == "nosniff"
    html = page.evaluate("fetch('/').then((answer) => answer.text())")
    assert re.search(r"<script(?![^>]*\bsrc=)", html) is None, "an inline script"
    assert re.search(r"<style|\sstyle=", html) is None, "an inline style"
    # Every module loaded (a syntax error would have stopped them) and the routes arrived.
    apps = page.locator("#app-select option").all_inner_texts()
    assert {"UnicornChat", "UnicornPay", "UnicornRides", "UnicornNote", "UnicornFit"} <= set(apps)

    # A conversation whose card has an image: UnicornChat's QR code arrives as bytes, shown as a data: URL.
    app.sign_in("diana")
    app.choose("UnicornChat", "INGetVisualCodeIntent")
    app.ask()
    app.wait_for_card("STAGE_DONE")
    image = page.locator("#result-card [data-test=response-image] img")
    expect(image).to_have_attribute("src", re.compile(r"^data:image/png;base64,"))
    page.wait_for_function("document.querySelector('#result-card [data-test=response-image] img').naturalWidth > 0")
    app.screenshot("csp-visual-code")
    assert app.csp_violations() == []
    assert app.console_errors() == []
