// GitLoom dashboard: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";

  // Copy buttons: <button data-copy-target="id-of-input">. Hidden until JS runs, since
  // without JS the secret is still selectable in its read-only field.
  function copyText(input) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(input.value);
    }
    // Plain-http (local) installs have no async clipboard API: select and copy.
    input.focus();
    input.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    return ok ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  function setupCopy(button) {
    var input = document.getElementById(button.getAttribute("data-copy-target"));
    var status = document.getElementById(button.getAttribute("data-copy-status"));
    if (!input) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      copyText(input).then(function () {
        if (status) { status.textContent = "Copied to the clipboard."; }
      }, function () {
        input.select();
        if (status) { status.textContent = "Press Ctrl+C (or ⌘C) to copy the selected key."; }
      });
    });
  }

  // Typed confirmation: the submit stays disabled until the exact name is typed. The
  // server checks the same thing, so this is a convenience, not the guard.
  function setupConfirm(input) {
    var expected = input.getAttribute("data-confirm-value");
    var button = document.getElementById(input.getAttribute("data-confirm-button"));
    if (!button) { return; }
    function sync() { button.disabled = input.value !== expected; }
    input.addEventListener("input", sync);
    sync();
  }

  // A job still queued or running: fetch its page again every second and swap the part
  // that changes, until the job is done or failed (without JS, a <noscript> refresh).
  function followJob(live) {
    function poll() {
      fetch(window.location.href, { credentials: "same-origin" }).then(function (response) {
        return response.text();
      }).then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("job-live");
        if (!fresh) { return; }
        live.innerHTML = fresh.innerHTML;
        if (fresh.hasAttribute("data-live-until-done")) {
          window.setTimeout(poll, 1000);
        } else {
          live.removeAttribute("data-live-until-done");
        }
      }, function () { window.setTimeout(poll, 3000); });
    }
    window.setTimeout(poll, 700);
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-live-until-done]").forEach(followJob);
    document.querySelectorAll("[data-copy-target]").forEach(setupCopy);
    document.querySelectorAll("[data-confirm-value]").forEach(setupConfirm);
  });
})();
