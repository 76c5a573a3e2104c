// Links from the words the interface uses to their entries on the glossary page
// (server/templates/pages/glossary.*.html), in the client's language.

import { h } from "./dom.js";
import { lang } from "./i18n.js";

/**
 * `text` (a string or nodes) linked to the glossary's entry `term` (its id there, e.g.
 * "pip-count"). It opens in a new tab: following it from a match must not leave the match.
 */
export function glossaryLink(term, ...text) {
  return h("a", { href: `/glossary?lang=${lang()}#${term}`, class: "glossary-link",
    "data-term": term, target: "_blank", rel: "noopener" }, ...text);
}
