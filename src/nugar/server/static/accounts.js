// The sign-up and sign-in pages' forms (static/account.html, an ES module). The account menu
// of every page's header is common.js's; the session is an HttpOnly cookie this script never
// sees.
import { $, api } from "./common.js";
import { t } from "./i18n.js";

// where to go once signed in: the page named by ?next= on this site, else the home page
function next() {
  const to = new URLSearchParams(location.search).get("next") || "/";
  return to.startsWith("/") && !to.startsWith("//") ? to : "/";
}

function form(name, path) {
  const section = $(name);
  if (!section) return;
  section.hidden = false;
  document.title = name === "signup" ? t("Sign up - nugar") : t("Sign in - nugar");
  const error = $(`${name}-error`);
  for (const input of section.querySelectorAll("input")) {
    input.addEventListener("input", () => { error.textContent = ""; });
  }
  $(`${name}-form`).addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const button = $(`${name}-go`);
    button.disabled = true;
    try {
      await api("POST", path, { username: $(`${name}-name`).value.trim(),
                                 password: $(`${name}-password`).value });
      location.assign(next());
    } catch (e) {
      error.textContent = e.message;
    } finally {
      button.disabled = false;
    }
  });
}

if (location.pathname === "/signup") form("signup", "/api/accounts");
if (location.pathname === "/signin") form("signin", "/api/session");
