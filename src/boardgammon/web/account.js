// Deleting one's account (docs/api.md §Deleting an account): a closed box at the foot of the
// lobby; a full account gives its password, a guest only confirms. Nothing is sent until the
// player ticks the confirmation.

import { ApiError, request } from "./api.js";
import { h } from "./dom.js";
import { errorText, t } from "./i18n.js";

/** The "Delete account" box for `user`; `onDeleted()` runs once the server has deleted it. */
export function deleteAccountBox(user, onDeleted) {
  const password = user.guest ? null : h("input", {
    name: "password", type: "password", autocomplete: "current-password", required: true,
  });
  const confirmed = h("input", { type: "checkbox", name: "confirm", required: true });
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", { class: "delete-account", onsubmit: async (e) => {
    e.preventDefault();
    const button = form.querySelector("button");
    if (button.disabled || !confirmed.checked) return;
    button.disabled = true;
    try {
      await request("POST", "/api/auth/delete", password ? { password: password.value } : {},
        { "X-Boardgammon-As": user.username });
      onDeleted();
    } catch (err) {
      error.textContent = err instanceof ApiError && err.code === "bad_credentials"
        ? t("account.delete.wrong") : errorText(err);
      button.disabled = false;
    }
  } },
  h("p", { class: "hint" }, t("account.delete.what")),
  password ? h("label", { class: "field" }, h("span", {}, t("auth.password")), password) : null,
  h("label", { class: "field confirm" }, confirmed,
    h("span", {}, t("account.delete.confirm", { name: user.username }))),
  h("button", { type: "submit", class: "danger", "data-action": "delete-account" },
    t("account.delete.button")),
  error);
  return h("details", { class: "delete-box" }, h("summary", {}, t("account.delete")), form);
}
