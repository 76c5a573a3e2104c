// Ratings in the lobby (docs/api.md §Lobby, §Players): the owner's rating beside a seek, the
// rated switch and the opponent's rating range of a new seek, links to profiles.

import { h } from "./dom.js";
import { lang, t } from "./i18n.js";

/** "(1512) · rated 1400–1700" for a seek: the owner's rating (none for a guest) and its terms. */
export function seekRating(seek) {
  const parts = [];
  if (seek.owner_rating !== null && seek.owner_rating !== undefined) {
    parts.push(` (${Math.round(seek.owner_rating)})`);
  }
  if (seek.rated) {
    const low = seek.min_rating ?? null;
    const high = seek.max_rating ?? null;
    parts.push(` · ${low === null && high === null ? t("ratings.rated")
      : t("ratings.range", { low: low === null ? "…" : Math.round(low), high: high === null ? "…" : Math.round(high) })}`);
  }
  return parts.join("");
}

/** A link to a player's profile page, in the page's language. */
export function profileLink(name, text = name) {
  return h("a", { href: `/player/${encodeURIComponent(name)}?lang=${lang()}`, class: "profile" }, text);
}

/** The new seek's rated switch and rating range (the range shows only for a rated seek). */
export function ratedFields(field) {
  const rated = h("input", { type: "checkbox", name: "rated", value: "1" });
  const bound = (name) => h("input", { type: "number", name, min: 0, max: 5000, step: 1, inputmode: "numeric" });
  const low = field(t("ratings.min"), bound("min_rating"));
  const high = field(t("ratings.max"), bound("max_rating"));
  const show = () => { low.hidden = high.hidden = !rated.checked; };
  rated.addEventListener("change", show);
  show();
  return [h("label", { class: "field check" }, rated, h("span", {}, t("ratings.rated.ask"))), low, high];
}

/** The rating part of a new seek's body from the form's data. */
export function ratedBody(form) {
  if (!form.get("rated")) return { rated: false };
  const number = (name) => (form.get(name) ? Number(form.get(name)) : null);
  return { rated: true, min_rating: number("min_rating"), max_rating: number("max_rating") };
}

/** The lobby's links to the signed-in player's profile (full accounts) and the leaderboard. */
export function ratingLinks(user) {
  return h("p", { class: "rating-links" },
    user.guest ? null : [profileLink(user.username, t("ratings.profile")), " · "],
    h("a", { href: `/leaderboard/standard?lang=${lang()}` }, t("ratings.leaderboard")));
}
