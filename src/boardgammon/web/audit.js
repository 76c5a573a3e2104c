// The audit page (server/templates/audit.html): a roll's row shows every value of its entry
// and its log leaves when it is first opened, fetched from the roll's proof (the link inside
// it), so that a long match's page carries no hashes in full (docs/fair-dice.md §Audit).
// Without this script the same link opens the values as JSON.

const table = document.getElementById("rolls");
const labels = JSON.parse(table.dataset.labels);
const events = JSON.parse(table.dataset.events);
// A value's words by field and value (a state, a source, a seat's player), shown before the
// value as the record has it, which is what a verifier reads, in brackets (the words may hold
// parentheses of their own: "Computer (easy) [1]").
const words = JSON.parse(table.dataset.words || "{}");

function line(list, name, value) {
  const term = document.createElement("dt");
  term.textContent = labels[name] ?? name;
  const text = document.createElement("dd");
  const raw = value === null ? "–" : typeof value === "object" ? JSON.stringify(value) : String(value);
  const said = value === null ? undefined : (words[name] || {})[raw];
  text.textContent = said && said !== raw ? `${said} [${raw}]` : raw;
  list.append(term, text);
}

async function show(details) {
  const list = document.createElement("dl");
  details.append(list);
  try {
    const answer = await fetch(details.querySelector("a.log-proof").href);
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    const { roll } = await answer.json();
    for (const [name, value] of Object.entries(roll)) {
      // A roll that verifies has no reason to give: no empty "Why" line.
      if (name === "log" || (name === "verdict_detail" && !value)) continue;
      line(list, name, value);
    }
    line(list, "log", roll.log.map((e) => `${e.index}: ${events[e.event] ?? e.event}`).join(", "));
  } catch {
    const failed = document.createElement("p");
    failed.textContent = table.dataset.failed;
    list.replaceWith(failed);
  }
}

for (const details of table.querySelectorAll("details")) {
  details.addEventListener("toggle", () => show(details), { once: true });
}
