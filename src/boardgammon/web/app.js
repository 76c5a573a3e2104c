// The single-page client: header (language, account), footer (the reading pages), sign-in,
// lobby, join links and the match page. Routes: /  (lobby or sign-in), /join/{seek_id}, /match/{match_id},
// /match/{match_id}/analysis.

import { AnalysisPage } from "./analysis.js";
import { ApiError, request } from "./api.js";
import { clockAfter, clockText as secondsText, copyButton, fill, h } from "./dom.js";
import { glossaryLink } from "./glossary.js";
import { errorText, lang, LANGUAGES, playerName, setLang, t } from "./i18n.js";
import { deleteAccountBox } from "./account.js";
import { MatchPage } from "./match.js";
import { profileLink, ratedBody, ratedFields, ratingLinks, seekRating } from "./ratings.js";
import { Notifier } from "./notifications.js";
import { followServer, readPreference, savePreference } from "./store.js";
import { WatchList } from "./watch.js";

const LOBBY_POLL_MS = 2000;

const app = {
  user: null,
  page: null, // the current page object with destroy(), if any
  main: document.getElementById("app"),
  header: document.getElementById("header"),
  footer: document.getElementById("footer"),
};

// The server's reading pages (server/routes/pages.py), opened in the language chosen here.
const SITE_PAGES = [
  ["fair", "/fair"], ["rules", "/rules"], ["skill", "/skill-levels"], ["odds", "/odds"],
  ["record", "/dice-record"], ["glossary", "/glossary"],
];

// The session cookie is HttpOnly, so the page cannot see whether it has one: it keeps its own
// word for it on this device, "in" or "out". A visitor known to be signed out is not asked
// about (GET /api/me answers them 401, which the browser logs as an error on every load).
// Without a word (a first visit, or a session from before the word was kept) it asks once.
const SESSION_KEY = "bg.session";

/** The visitor is now `user` (null: signed out); remembered for the next page load. */
function setUser(user) {
  app.user = user;
  savePreference(SESSION_KEY, user ? "in" : "out");
}

function navigate(path, replace = false) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  // The new page starts at its top, as a loaded page does: the lobby's scroll, kept, opened a
  // match at 320 px with the board's top edge off the screen.
  window.scrollTo(0, 0);
  route();
}

// Same-origin links marked data-link change the route without reloading the page.
document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[data-link]");
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey) return;
  e.preventDefault();
  navigate(a.getAttribute("href"));
});
window.addEventListener("popstate", () => route());

function renderHeader() {
  const select = h("select", { id: "lang", "aria-label": t("lang.label"), onchange: (e) => {
    setLang(e.target.value);
    route();
  } }, Object.entries(LANGUAGES).map(([code, name]) =>
    h("option", { value: code, selected: code === lang() }, name)));
  // The name in its own element, kept whole: "guest-86548d15" broke at its hyphen; the
  // words around it may wrap.
  const [before, after] = t("auth.signedin", { name: "\u0000" }).split("\u0000");
  const account = app.user ? h("span", { class: "account" },
    h("span", { class: "who", "data-username": app.user.username },
      before, h("span", { class: "name" }, app.user.username), after),
    h("button", { type: "button", "data-action": "signout", onclick: signOut }, t("auth.signout")))
    : null;
  fill(app.header,
    h("a", { href: "/", "data-link": "", class: "brand" }, t("app.title")),
    h("span", { class: "spacer" }), notifier(), select, account);
}

/** The notifications badge of the signed-in player (kept across pages, made anew for
 * another player or language). */
function notifier() {
  const key = app.user ? `${app.user.id}:${lang()}` : null;
  if (app.notifier && app.notifier.key !== key) {
    app.notifier.stop();
    app.notifier = null;
  }
  if (key && !app.notifier) {
    app.notifier = new Notifier(app.user);
    app.notifier.key = key;
  }
  return app.notifier ? app.notifier.node : null;
}

function renderFooter() {
  fill(app.footer, h("nav", { "aria-label": t("site.pages") },
    SITE_PAGES.map(([key, path]) => h("a", { href: `${path}?lang=${lang()}` }, t(`site.${key}`)))));
}

async function signOut() {
  try {
    await request("POST", "/api/auth/logout");
  } finally {
    setUser(null);
    navigate("/");
  }
}

/**
 * A submit handler that runs `action` once at a time: while its request is out the form's
 * buttons are disabled, so a double click or a second Enter sends nothing more.
 */
function once(action) {
  let running = false;
  return async (e) => {
    e.preventDefault();
    if (running) return;
    running = true;
    const form = e.currentTarget;
    const buttons = [...form.querySelectorAll("button")];
    for (const b of buttons) b.disabled = true;
    try {
      await action(e);
    } finally {
      running = false;
      for (const b of buttons) b.disabled = false;
    }
  };
}

function field(label, input) {
  return h("label", { class: "field" }, h("span", {}, label), input);
}

// --- sign in --------------------------------------------------------------------------------

/** Username and password inputs with the server's rules (docs/api.md §Authentication). */
function credentialInputs(passwordAutocomplete) {
  return [
    h("input", { name: "username", autocomplete: "username", required: true, minlength: 3,
      maxlength: 20, pattern: "[A-Za-z0-9_\\-]+" }),
    h("input", { name: "password", type: "password", autocomplete: passwordAutocomplete,
      required: true, minlength: 8 }),
  ];
}

function authPage(after) {
  const form = authForm(after, "h1");
  fill(app.main, form);
  form.querySelector("input").focus();
}

/** The sign-in form (sign in, sign up, or play as a guest), headed by a `heading` element
 * (none when null); `after()` runs once signed in. */
function authForm(after, heading) {
  const [username, password] = credentialInputs("current-password");
  const error = h("p", { class: "error", role: "alert" });
  const submit = async (path) => {
    error.textContent = "";
    try {
      const answer = await request("POST", path,
        path.endsWith("guest") ? undefined : { username: username.value, password: password.value });
      setUser(answer.user);
      after();
    } catch (err) {
      error.textContent = errorText(err);
    }
  };
  const form = h("form", { class: "auth", onsubmit: (e) => { e.preventDefault(); submit("/api/auth/login"); } },
    heading ? h(heading, {}, t("auth.title")) : null,
    field(t("auth.username"), username),
    field(t("auth.password"), password),
    h("p", { class: "hint" }, t("auth.rules")),
    h("div", { class: "row" },
      h("button", { type: "submit", class: "primary", "data-action": "signin" }, t("auth.signin")),
      h("button", { type: "button", "data-action": "register", onclick: () => {
        if (form.reportValidity()) submit("/api/auth/register");
      } }, t("auth.register"))),
    h("div", { class: "row" },
      h("button", { type: "button", "data-action": "guest", onclick: () => submit("/api/auth/guest") },
        t("auth.guest"))),
    error);
  return form;
}

// --- lobby ----------------------------------------------------------------------------------

let optionsCache = null;

/** "ann: 5-point Backgammon, Live · blitz (8s + 60s/pt)": a seek's owner, match and terms. */
function seekText(seek) {
  const terms = seekTerms(seek);
  return t("lobby.seek", { owner: seek.owner, length: seek.length, variant: t(`variant.${seek.variant}`),
    mode: seek.mode === "live" ? `${t("lobby.mode.live")} · ${terms}` : terms });
}

/** How a seek's match is timed: its clock preset (or none), or its days per move. */
function seekTerms(seek) {
  if (seek.mode === "correspondence") return t("join.days", { n: seek.days });
  return seek.clock ? clockText(seek.clock) : t("join.noclock");
}

/** A clock preset as the lobby names it, translated: "blitz (8 s + 60 s/pt)" (the name alone
 * if unknown). */
function clockText(name) {
  const p = optionsCache && optionsCache.clock_presets.find((x) => x.name === name);
  return p ? t("clock.preset", { name: t(`clock.${name}`), delay: p.delay, reserve: p.reserve_per_point })
    : t(`clock.${name}`);
}

/** A refused new seek in the page's language where the refusal is one a player meets (the
 * server's message is English): no such invitee, or the same seek already open. */
function seekRefusal(err, invite) {
  if (err instanceof ApiError && err.code === "not_found" && invite) {
    return t("lobby.no_player", { name: invite });
  }
  if (err instanceof ApiError && err.code === "duplicate_seek") return t("lobby.duplicate");
  return errorText(err);
}

/** One's own seek's join link, on a line of its own, to share: the address and a button that
 * copies it (it was only text, broken across lines inside "http"). */
function joinLink(url) {
  const address = h("code", {}, url);
  return h("div", { class: "join-url" }, `${t("lobby.joinlink")}: `, address, " ",
    copyButton(url, address, t("result.copy"), t("result.copied")));
}

/** A finished match of "my matches": who won, with the winner's final score first
 * ("bob won 5–2"). */
function finishedText(m) {
  // Online matches are 1 point or longer: finished without a winner is an aborted one.
  if (m.status === "finished" && m.winner === null) return t("lobby.aborted");
  if (m.winner === null || m.winner === undefined) return t("lobby.finished");
  const [a, b] = [m.score[m.winner], m.score[1 - m.winner]];
  return m.winner === m.you ? t("lobby.youwon", { a, b }) : t("lobby.won", { name: playerName(m.opponent), a, b });
}

/** How a match of "my matches" is played: its clock preset, or correspondence. */
function modeText(m) {
  if (m.clock) return clockText(m.clock);
  return t(`lobby.mode.${m.mode}`);
}

/** Both reserves of a match summary, yours first, as of the lobby's last poll (the running
 * seat's reserve minus what its delay window no longer covers since `as_of`). */
function matchClocks(m) {
  const c = m.clocks;
  const elapsed = Math.max(0, Date.now() / 1000 - c.as_of);
  const left = (seat) => clockAfter(c, seat, elapsed).reserve;
  const you = m.you;
  return h("span", { class: "clocks", "data-reserve": c.reserve.join(",") },
    t("lobby.clocks", { mine: secondsText(left(you)), theirs: secondsText(left(1 - you)) }));
}

function select(name, values, label, chosen) {
  return h("select", { name }, values.map((v) =>
    h("option", { value: v, selected: String(v) === String(chosen) }, label(v))));
}

class LobbyPage {
  constructor() {
    this.knownMatches = null;
    this.lists = h("div", { class: "lists" });
    this.error = h("p", { class: "error", role: "alert" });
    this.watch = new WatchList();
    // On a phone the forms come last, under the lists, some 1,400 px down: a way to the
    // computer's form from the first screen (the address stays the lobby's).
    const toComputer = h("a", { href: "#play-computer", class: "button to-computer", onclick: (e) => {
      e.preventDefault();
      const form = document.getElementById("play-computer");
      if (!form) return;
      form.scrollIntoView({ block: "start" });
      form.querySelector("select").focus({ preventScroll: true });
    } }, `${t("lobby.computer")} ↓`);
    fill(app.main, h("section", { class: "lobby" },
      h("h1", {}, t("lobby.title")), ratingLinks(app.user), h("p", { class: "lobby-jump" }, toComputer),
      this.error,
      app.user.guest ? upgradeForm() : null,
      this.lists, this.watch.node, h("div", { class: "forms" })),
    // Outside the lobby's section: its own error line is not the lobby's.
    deleteAccountBox(app.user, () => { setUser(null); navigate("/"); }));
    this.start();
  }

  async start() {
    try {
      optionsCache = optionsCache || (await request("GET", "/api/options"));
      this.renderForms(optionsCache);
    } catch (err) {
      this.error.textContent = errorText(err);
    }
    await this.load();
    this.timer = setInterval(() => this.load(), LOBBY_POLL_MS);
  }

  destroy() {
    clearInterval(this.timer);
    this.watch.destroy();
  }

  async load() {
    let lobby;
    try {
      lobby = await request("GET", "/api/lobby");
    } catch (err) {
      this.error.textContent = errorText(err);
      this.loadError = true;
      return;
    }
    // Clear only a failed poll's message: a refusal of what the player did (an unknown invitee,
    // a seek no longer open) stays until their next action.
    if (this.loadError) this.error.textContent = "";
    this.loadError = false;
    // The device's dice stores follow the server's word (store.js): a match listed active is
    // in use (never dropped as stale), one listed finished may go first.
    const listed = (status) => lobby.matches.filter((m) => m.status === status).map((m) => m.match_id);
    followServer(listed("active"), listed("finished"));
    // When someone accepts this player's seek or invitation a new active match appears: open
    // it. A live match always (the opponent is waiting), a correspondence one when one of this
    // player's own open seeks or invitations (`mine`) was taken.
    const ids = new Set(lobby.matches.map((m) => m.match_id));
    if (this.knownMatches) {
      const fresh = lobby.matches.find((m) => !this.knownMatches.has(m.match_id) && m.status === "active");
      const taken = this.mySeeks > lobby.mine.length;
      if (fresh && (fresh.mode === "live" || taken)) {
        navigate(`/match/${fresh.match_id}`);
        return;
      }
    }
    this.knownMatches = ids;
    this.mySeeks = lobby.mine.length;
    this.renderLists(lobby);
  }

  renderLists(lobby) {
    const seekItem = (seek) => {
      const own = seek.owner === app.user.username;
      return h("li", { "data-seek": seek.id }, seekText(seek), seekRating(seek),
        seek.invite ? ` · ${t("lobby.invited", { name: seek.invite })}` : "", " ",
        own ? h("button", { type: "button", "data-action": "withdraw", onclick: async () => {
          await request("DELETE", `/api/seeks/${seek.id}`).catch((e) => {
            // taken a moment ago: said in the page's language, as an accept that came late
            this.error.textContent = e instanceof ApiError && e.code === "seek_closed" ? t("join.gone") : errorText(e);
          });
          this.load();
        } }, t("lobby.cancel"))
          // No Accept the server would refuse: a guest's, or a rating outside the range.
          : seek.refusal ? h("span", { class: "refusal", "data-refusal": seek.refusal }, t(`lobby.refusal.${seek.refusal}`))
          : h("button", { type: "button", "data-action": "accept", onclick: (e) => acceptSeek(seek.id, this.error, e.currentTarget) },
            t("lobby.accept")),
        own ? joinLink(new URL(seek.join_url, location.href).href) : null);
    };
    const list = (title, items, render) => h("section", {}, h("h2", {}, title),
      items.length ? h("ul", {}, items.map(render)) : h("p", { class: "empty" }, t("lobby.none")));
    const matchItem = (m) => h("li", { "data-match": m.match_id, class: m.your_turn ? "your-turn" : "" },
      h("a", { href: `/match/${m.match_id}`, "data-link": "" }, t("lobby.vs", { name: playerName(m.opponent) })),
      // the score from your side, as the result beside it ("3–0 / 3 · you won 3–0")
      ` · ${m.score[m.you]}–${m.score[1 - m.you]} / ${m.length} · ${t(`variant.${m.variant}`)} · ${modeText(m)} · `,
      m.status === "finished" ? finishedText(m) : m.your_turn ? t("lobby.yourturn") : t("lobby.theirturn"),
      m.deadline ? ` · ${t("lobby.deadline", { time: new Date(m.deadline).toLocaleString() })}` : "",
      m.clocks ? [" · ", matchClocks(m)] : null);
    // Your own seeks and invitations are listed once, under "mine" (to share or withdraw).
    const others = lobby.seeks.filter((seek) => seek.owner !== app.user.username);
    fill(this.lists,
      list(t("lobby.mine"), lobby.mine, seekItem),
      list(t("lobby.invitations"), lobby.invitations, seekItem),
      list(t("lobby.seeks"), others, seekItem),
      list(t("lobby.matches"), lobby.matches, matchItem));
  }

  renderForms(options) {
    const lengthField = () => field(glossaryLink("match", t("lobby.length")),
      select("length", options.lengths, String, options.default_length));
    const variants = () => select("variant", options.variants, (v) => t(`variant.${v}`), options.variants[0]);
    const mode = select("mode", ["live", "correspondence"], (m) => t(`lobby.mode.${m}`), "live");
    const clock = select("clock", options.clock_presets.map((p) => p.name), clockText, options.clock_presets[Math.min(2, options.clock_presets.length - 1)]?.name);
    const days = select("days", options.correspondence_days, String, options.correspondence_days[0]);
    const clockField = field(t("lobby.clock"), clock);
    const daysField = field(t("lobby.days"), days);
    const showMode = () => {
      clockField.hidden = mode.value !== "live";
      daysField.hidden = mode.value === "live";
    };
    mode.addEventListener("change", showMode);
    const invite = h("input", { name: "invite", autocomplete: "off", maxlength: 20 });
    const seekForm = h("form", { class: "create", onsubmit: once(async () => {
      this.error.textContent = "";
      const f = new FormData(seekForm);
      const live = f.get("mode") === "live";
      const invited = (f.get("invite") || "").trim(); // a pasted name may bring spaces
      if (invited && invited.toLowerCase() === app.user.username.toLowerCase()) {
        this.error.textContent = t("lobby.self_invite"); // said here, in the page's language
        return;
      }
      try {
        await request("POST", "/api/seeks", {
          length: Number(f.get("length")), variant: f.get("variant"), mode: f.get("mode"),
          clock: live ? f.get("clock") : null, days: live ? null : Number(f.get("days")),
          invite: invited || null, ...ratedBody(f),
        });
        await this.load();
      } catch (err) {
        this.error.textContent = seekRefusal(err, invited);
      }
    }) },
    h("h2", {}, t("lobby.create")),
    lengthField(), field(t("lobby.variant"), variants()),
    field(t("lobby.mode"), mode), clockField, daysField, field(t("lobby.invite"), invite),
    app.user.guest ? null : ratedFields(field),  // guests play unrated
    h("button", { type: "submit", class: "primary", "data-action": "post-seek" }, t("lobby.post")));
    showMode();
    const botForm = h("form", { class: "computer", id: "play-computer", onsubmit: once(async () => {
      this.error.textContent = "";
      const f = new FormData(botForm);
      try {
        const answer = await request("POST", "/api/matches/computer", {
          level: f.get("level"), length: Number(f.get("length")), variant: f.get("variant"),
        });
        navigate(`/match/${answer.match_id}`);
      } catch (err) {
        this.error.textContent = errorText(err);
      }
    }) },
    h("h2", {}, t("lobby.computer")),
    field(t("lobby.level"), select("level", options.bot_levels, (level) => t(`level.${level}`), options.bot_levels[0])),
    lengthField(), field(t("lobby.variant"), variants()),
    h("button", { type: "submit", class: "primary", "data-action": "play-computer" }, t("lobby.start")));
    fill(app.main.querySelector(".forms"), seekForm, botForm);
  }
}

/** For a guest: choose a name and password to keep the account and its matches. */
function upgradeForm() {
  const [username, password] = credentialInputs("new-password");
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", { class: "upgrade", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const answer = await request("POST", "/api/auth/upgrade",
        { username: username.value, password: password.value });
      setUser(answer.user);
      route();
    } catch (err) {
      error.textContent = errorText(err);
    }
  } },
  h("p", { class: "hint" }, t("auth.upgrade.hint")),
  field(t("auth.username"), username), field(t("auth.password"), password),
  h("button", { type: "submit", "data-action": "upgrade" }, t("auth.upgrade")), error);
  return h("details", { class: "upgrade-box" }, h("summary", {}, t("auth.upgrade")), form);
}

async function acceptSeek(seekId, errorNode, button) {
  if (button) {
    if (button.disabled) return;
    button.disabled = true;
  }
  try {
    const answer = await request("POST", `/api/seeks/${encodeURIComponent(seekId)}/accept`);
    navigate(`/match/${answer.match_id}`);
  } catch (err) {
    const gone = err instanceof ApiError && (err.status === 404 || err.code === "seek_closed");
    errorNode.textContent = gone ? t("join.gone") : errorText(err);
    if (button) button.disabled = false;
  }
}

async function joinPage(seekId) {
  const error = h("p", { class: "error", role: "alert" });
  const details = h("dl", { class: "seek-details" });
  const accept = h("button", { type: "button", class: "primary", "data-action": "accept", hidden: true,
    onclick: (e) => acceptSeek(seekId, error, e.currentTarget) }, t("lobby.accept"));
  const heading = h("h2", {}, t("join.details"));
  const note = h("p", { class: "own-seek", hidden: true }, t("join.own"));
  // Always a way on: a seek that is gone (or never was) left a page with no link at all.
  const back = h("p", {}, h("a", { href: "/", "data-link": "" }, t("result.lobby")));
  fill(app.main, h("section", { class: "join" }, h("h1", {}, t("join.title")),
    heading, details, note, accept, error, back));
  let seek;
  try {
    optionsCache = optionsCache || (await request("GET", "/api/options"));
    seek = await request("GET", `/api/seeks/${encodeURIComponent(seekId)}`);
  } catch (err) {
    error.textContent = err instanceof ApiError && err.status === 404 ? t("join.none") : errorText(err);
    heading.remove(); // no "match on offer" heading over nothing
    return;
  }
  if (seek.state === "accepted" || seek.state === "cancelled") {
    // Taken or withdrawn: say which, and lead on to the match a taken seek started (its two
    // players to their match, anyone else to watch it).
    heading.remove();
    note.textContent = t(seek.state === "accepted" ? "join.accepted" : "join.withdrawn");
    note.className = "seek-closed"; // news, not an error
    note.hidden = false;
    if (seek.match_id) {
      back.before(h("p", {}, h("a", { href: `/match/${encodeURIComponent(seek.match_id)}`, "data-link": "",
        class: "to-match" }, t("join.to_match"))));
    }
    return;
  }
  fill(details, seekDetails(seek).map(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]));
  // One's own seek, or an invitation for someone else: no Accept button that the server would
  // only refuse (own_seek, not_invited).
  const me = app.user ? app.user.username.toLowerCase() : null;
  if (!app.user) {
    // Signed out (the link came from a friend): the terms, then the way in; signed in, this
    // page again with its Accept button.
    // A rated seek is for accounts: said before "Play as guest" leads to a refusal.
    note.textContent = t(seek.rated ? "join.signin.rated" : "join.signin");
    note.hidden = false;
    back.before(authForm(() => route(), null)); // the note above says what it is for
  } else if (seek.owner.toLowerCase() === me) note.hidden = false;
  else if (me && seek.invite && seek.invite.toLowerCase() !== me) {
    note.textContent = t("join.not_yours", { name: seek.invite });
    note.hidden = false;
  } else if (seek.refusal) {
    // A block between the two, or a rated seek a guest or a rating outside its range may not
    // take (the server's reason); a guest may keep the account right here, then accept.
    note.textContent = t(`join.refusal.${seek.refusal}`);
    note.hidden = false;
    if (seek.refusal === "guest_unrated") back.before(upgradeForm());
  } else accept.hidden = false;
}

/** The join page's rows for `seek` (docs/api.md §Lobby): [term, value] pairs. */
function seekDetails(seek) {
  const rating = seek.owner_rating === null || seek.owner_rating === undefined ? ""
    : ` (${Math.round(seek.owner_rating)})`;
  const bound = (x) => (x === null || x === undefined ? t("join.any") : String(Math.round(x)));
  return [
    [t("join.owner"), [profileLink(seek.owner), rating]],
    seek.invite ? [t("join.invite"), seek.invite] : null,
    [t("lobby.length"), t("join.points", { n: seek.length })],
    [t("lobby.variant"), t(`variant.${seek.variant}`)],
    [t("lobby.clock"), seekTerms(seek)],
    [t("join.rating"), seek.rated ? t("join.rated") : t("join.unrated")],
    // A range only where the seek has one ("any–any" said nothing).
    seek.rated && (seek.min_rating != null || seek.max_rating != null)
      ? [t("join.range"), `${bound(seek.min_rating)}–${bound(seek.max_rating)}`] : null,
  ].filter(Boolean);
}

// --- routing --------------------------------------------------------------------------------

/** A path segment decoded; kept as it is when its %-escapes are malformed ("/match/%ZZ"). */
function segment(raw) {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The database is unreachable, so whether the visitor is signed in is unknown: the sign-in
 * form would tell a signed-in player they were signed out. Says so and asks again. */
function outagePage() {
  fill(app.main, h("section", { class: "outage" },
    h("p", { class: "error", role: "alert" }, t("outage.page"))));
  app.retry = setTimeout(() => route(), OUTAGE_RETRY_MS);
}

const OUTAGE_RETRY_MS = 5000; // the API's Retry-After for database_unavailable

async function route() {
  if (app.page && app.page.destroy) app.page.destroy();
  app.page = null;
  clearTimeout(app.retry);
  let outage = false;
  if (app.user === null && readPreference(SESSION_KEY) !== "out") {
    try {
      setUser((await request("GET", "/api/me")).user);
    } catch (err) {
      app.user = null;
      if (err instanceof ApiError && err.status === 401) setUser(null);
      outage = err instanceof ApiError && err.code === "database_unavailable";
    }
  }
  renderHeader();
  renderFooter();
  const path = location.pathname;
  const join = path.match(/^\/join\/([^/]+)$/);
  const match = path.match(/^\/match\/([^/]+)$/);
  const analysis = path.match(/^\/match\/([^/]+)\/analysis$/);
  if (analysis) {
    // Anyone may watch a match and read its analysis, as the API allows; signed out, as a
    // spectator.
    app.page = new AnalysisPage(app.main, segment(analysis[1]), app.user);
  } else if (match) {
    app.page = new MatchPage(app.main, segment(match[1]), app.user, navigate);
  } else if (!app.user && outage) {
    outagePage();
  } else if (join) {
    joinPage(segment(join[1])); // signed out too: the offer's terms beside the sign-in form
  } else if (!app.user) {
    authPage(() => route());
  } else {
    app.page = new LobbyPage();
  }
}

setLang(lang());
route();
