"""Page texts in English, German and Japanese, and the choice of language for a request.

A page looks its strings up in :data:`MESSAGES` through :func:`translator`; a missing key in a
translation falls back to English. ``?lang=de`` wins over the ``Accept-Language`` header.

Why one module of some 700 lines: most of it is the three languages' texts, kept side by side
so that a missing translation shows (a test compares their keys); the code is a few functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from starlette.requests import Request

from boardgammon.server.numerals import NUMERALS
from boardgammon.server.tables import DELETED_NAME

LANGUAGES = {"en": "English", "de": "Deutsch", "ja": "日本語"}
DEFAULT_LANGUAGE = "en"

MESSAGES: dict[str, dict[str, str | dict[str, str]]] = {
    "en": {
        "audit.title": "Dice record of match {match_id}",
        "audit.intro": (
            "Every roll of this match, both sides, in the order it was committed. Three inputs "
            "make each roll: a secret server seed, fixed and published as its SHA-256 (the "
            "commitment) before the roll; entropy from the roller's device, sent after the "
            "roller's cube decision; and the next link of the opponent's device's hash chain, "
            "fixed when the match began and revealed after the roller asked to roll. The server "
            "reveals its seed last. Every change of every roll, with its time, is also a leaf of "
            "a public append-only log whose signed tree head anyone can watch, so a rewritten or "
            "shortened history is caught. The verdicts below are recomputed by the server on "
            "every load of this page."
        ),
        "audit.verified": "All revealed rolls verify and the hash chain is intact.",
        "audit.failed": "Verification FAILED at roll {roll_id}: {reason}.",
        "audit.chain_head": "Chain head (the result dialog published it when the match ended)",
        "audit.chain_head_so_far": "Chain head so far (the match goes on; the result dialog "
                                   "publishes the final one when it ends)",
        "audit.not_found": "Match {match_id} has no rolls yet, so there is no dice record.",
        "audit.no_match": "There is no match {match_id}.",
        "audit.json": "This record as JSON",
        "col.seq": "#",
        "col.roll_id": "Roll ID",
        "col.player": "Player",
        "col.nonce": "Nonce",
        "col.commitment": "Commitment",
        "col.server_seed": "Server seed",
        "col.client_entropy": "Client entropy",
        "col.entropy_source": "Entropy from",
        "col.dice": "Dice",
        "col.verdict": "Verdict",
        "source.client": "roller's device",
        "source.server": "server (no device took part)",
        "verdict.ok": "verified",
        "verdict.pending": "pending: only the commitment is public",
        "verdict.never revealed": "never revealed (seed stays secret)",
        "verdict.seed missing": "seed missing",
        "verdict.commitment mismatch": "commitment mismatch",
        "verdict.dice mismatch": "dice mismatch",
        "verdict.chain broken": "chain broken",
        "verdict.malformed": "malformed entry",
        "verify.title": "Verify it yourself",
        "verify.roll": (
            "This Python program uses only the standard library. It is filled in with the "
            "match's first revealed roll, checks its commitment and its dice, and stops with an "
            "error on any mismatch."
        ),
        "verify.no_roll": "The program appears here once the match's first roll is revealed.",
        "verify.match": (
            "To check the whole match, chain included, download the verifier (one file, standard "
            "library only) and run it on this record's JSON:"
        ),
        "verify.source": "Download verify.py",
        "verify.openssl": (
            "The same check with the openssl command line: the first command prints the "
            "commitment; the second computes block 0 and prints the dice (bytes fc–ff are "
            "skipped; die = byte mod 6 + 1)."
        ),
        "language": "Language",
        "site.home": "Play",
        "site.pages": "About the game",
        "site.fair": "Provably fair dice",
        "site.rules": "Rules",
        "site.skill": "Skill levels and PR",
        "site.glossary": "Glossary",
        "error.title": "Error {status}",
        "error.text": "The server could not answer this request.",
        "error.title.400": "Bad request",
        "error.text.400": "The server could not read this request.",
        "error.title.404": "Not found",
        "error.text.404": "There is no page at this address.",
        "error.title.405": "Not allowed",
        "error.text.405": "This address does not take this kind of request.",
        "error.title.413": "Too large",
        "error.text.413": "The request is larger than the server reads.",
        "error.title.422": "Bad request",
        "error.text.422": "The query of this address could not be read.",
        "error.title.503": "Unavailable",
        "error.text.503": "The server cannot answer just now. Try again in a few seconds.",
        "error.database_unavailable": (
            "The server cannot reach its database just now. Try again in a few seconds."),
        "error.home": "Go to the lobby",
        "error.player": "There is no player “{name}”.",
        "error.variant": "There is no leaderboard for “{variant}”.",
        "error.page_number": "“{got}” is not a page number: pages are numbered from 1.",
        "error.page_past": "The matches of {name} end at page {pages}: there is no page after it.",
        "error.player_page": "The page of {name}",
        "fair.box": "Match ID",
        "fair.submit": "Verify rolls",
        "fair.malformed": (
            "{match} is not a match ID. A match ID starts with mat_ followed by letters and "
            "digits, e.g. mat_3q7kzx2bq4…; the result screen and the audit page show it."
        ),
        "fair.unknown": "There is no dice record for match {match} on this server.",
        "fair.control": (
            "{match} holds a control character ({found}), which no match ID does: copy the ID "
            "again from the result screen or the audit page."
        ),
        "audit.about": "How provably fair dice work",
        "site.odds": "Odds calculator",
        "odds.intro": (
            "Exact chances for the questions players count at the board. The hitting, entering "
            "and bearing-off figures are counted from the game's own legal plays over the 36 "
            "throws of two dice: a roll counts when some legal play of it does the thing asked, "
            "and every roll except a double can be thrown two ways (6-5 and 5-6)."
        ),
        "odds.compute": "Count",
        "odds.result": "{count} of 36 throws ({percent})",
        "odds.which": "The rolls that do it (doubles once, the others twice):",
        "odds.none": "No roll does it.",
        "odds.hit.split": "{direct} direct, {indirect} indirect (combination shots).",
        "odds.col.direct": "Direct",
        "odds.col.indirect": "Indirect",
        "odds.error.distance": "A blot can be 1 to {high} pips away, not {got}.",
        "odds.error.blocked_between": (
            "Blocked points lie between the checker and the blot, 1 to {high} pips away, not {got}."
        ),
        "odds.error.blocked_many": (
            "The opponent's 15 checkers make the blot and at most 7 points, not {got}."
        ),
        "odds.error.closed": "0 to 6 points can be closed, not {got}.",
        "odds.error.bar": "1 or 2 checkers can be on the bar, not {got}.",
        "odds.error.bearoff_points": "Checkers go on points 1–6 in counts of 0 or more, not {got}.",
        "odds.error.bearoff_total": "1 to 15 checkers can be borne off, not {got}.",
        "odds.error.bearoff_six": "Six counts, for points 1–6, not {got}.",
        "odds.error.numbers": "Give whole numbers separated by commas or spaces, not “{got}”.",
        "odds.error.number": "“{name}” takes one whole number, not “{got}”.",
        "odds.error.range": "“{name}” takes a whole number from {low} to {high}, not {got}.",
        "odds.error.rolls_times_games": (
            "Rolls × games can be at most {high}, not {rolls} × {games}."
        ),
        "odds.hit.title": "Hitting a blot",
        "odds.hit.text": (
            "One of your checkers and an opponent's blot some pips in front of it. Direct shots "
            "use one die; combination shots add both dice, or three or four steps of a double, "
            "and stop on the points in between, which the opponent may hold."
        ),
        "odds.distance": "Pips to the blot (1–24)",
        "odds.blocked": (
            "Points held by the opponent in between, in pips from your checker (e.g. 3, 5)"
        ),
        "odds.shots": "With nothing in between",
        "odds.col.distance": "Pips",
        "odds.col.throws": "Throws of 36",
        "odds.col.chance": "Chance",
        "odds.enter.title": "Entering from the bar",
        "odds.enter.text": (
            "A die enters when the point it names in the opponent's home board is open. One "
            "checker enters unless both dice are closed; two checkers both enter only when both "
            "dice are open (a double of an open number enters both)."
        ),
        "odds.col.closed": "Closed points",
        "odds.col.one": "One checker enters",
        "odds.col.two": "Both of two enter",
        "odds.bear.title": "Bearing off in one roll",
        "odds.bear.text": (
            "How many checkers on each point of your home board: the chance to bear them all off "
            "with the next roll."
        ),
        "odds.bear.point": "Checkers on points 1 to 6, in that order",
        "odds.doubles.title": "Doubles",
        "odds.doubles.text": (
            "Runs of doubles for two fair dice, you and your opponent rolling N times each, as "
            "the command boardgammon odds doubles counts them, exactly."
        ),
        "odds.rolls": "Rolls each (N)",
        "odds.margin": "Margin (D)",
        "odds.games": "Games (G)",
        "odds.expected": "Expected doubles in N rolls",
        "odds.p_at_least_one_double": "At least one double",
        "odds.p_run_of_2": "A run of 2 doubles in a row",
        "odds.p_run_of_3": "A run of 3 doubles in a row",
        "odds.p_opponent_more_by_margin": "The opponent rolls at least D more doubles than you",
        "odds.p_you_more_by_margin": "You roll at least D more doubles than the opponent",
        "odds.p_opponent_run_of_3_within_games": (
            "The opponent rolls 3 doubles in a row in at least one of G games"
        ),
        "odds.kniffel.title": "Kniffel (Yahtzee)",
        "odds.kniffel.text": (
            "Five dice, all showing one face, within 1, 2 or 3 rolls: holding the best dice each "
            "time (optimal), always re-rolling all five, and keeping the largest group's face "
            "(boardgammon odds kniffel)."
        ),
        "odds.col.rolls": "Rolls",
        "odds.col.optimal": "Optimal holding",
        "odds.col.always": "Re-roll all",
        "odds.col.fixed": "Keep the largest group",
        "site.record": "Dice record",
        "record.intro": (
            "Every revealed roll of every online match on this server, both sides, counted and te"
            "sted as the command boardgammon stats dice-report does. Fair dice give each of the 3"
            "6 ordered outcomes (first die, second die) the same chance, 1/36, and doubles 1/6."
        ),
        "record.empty": (
            "No roll has been revealed on this server yet, so there is nothing to count."
        ),
        "record.range": {
            "one": (
                "1 roll ({dice} dice), revealed from {first} to {last} (UTC). This report was "
                "made {made} and is made again at most once a day."
            ),
            "other": (
                "{rolls} rolls ({dice} dice), revealed from {first} to {last} (UTC). This report "
                "was made {made} and is made again at most once a day."
            ),
        },
        "record.rough": (
            "But only {expected} are expected per cell, under the 5 the chi-square approximation "
            "needs, so this p-value is rough."
        ),
        "record.rough.short": "rough: {expected} expected per cell, under 5",
        "record.download": "Download the counts",
        "record.picture.cells": "{rolls} rolls: count per ordered outcome",
        "record.picture.second_die": "second die",
        "record.picture.first_die": "first die",
        "record.picture.colour_bar": "% above (red) / below (blue) n/36",
        "record.picture.faces": "{dice} dice: share of each face",
        "record.picture.face": "face",
        "record.picture.percent": "% of all dice",
        "record.picture.share": "share, 95% interval",
        "record.picture.fair": "fair: 1/6",
        "record.plot": (
            "Left: the count of each ordered outcome, coloured by how far it is above or below th"
            "e fair count. Right: each face's share of all dice with its 95% interval, against 1"
            "/6."
        ),
        "record.table.title": "The 36 outcomes",
        "record.table.text": (
            "Rows: first die; columns: second die. Fair dice would give {expected} of each."
        ),
        "record.doubles.title": "Doubles",
        "record.doubles.text": (
            "{doubles} doubles = {share} (fair dice: 16.67%; 95% interval {low}–{high}; p = {p}"
            ": {verdict})."
        ),
        "record.faces.title": "Faces",
        "record.chi2.title": "Chi-square tests",
        "record.chi2.cells": "The 36 ordered outcomes together",
        "record.chi2.faces": "The six faces together",
        "record.chi2.line": (
            "{name}: chi-square {statistic}, {df} degrees of freedom, p = {p}: {verdict}."
        ),
        "record.verdict.fair": "well within what fair dice do",
        "record.verdict.unusual": (
            "unusual for fair dice, though about 1 test in 20 is this unusual by chance"
        ),
        "record.verdict.unlikely": "very unlikely with fair dice",
        "record.extremes.title": "The most deviant outcome and face",
        "record.extremes.text": (
            "Picking the most extreme figure after looking makes it look rarer than it is, so eac"
            "h is given twice: the chance that fair dice put some outcome (or face) that far off,"
            " and the chance for one named in advance."
        ),
        "record.max_cell": (
            "The commonest outcome, {outcome}: {count} ({excess} over the average). Some outcome "
            "is that far up in {p_any} of fair counts of this size; one named in advance in {p_na"
            "med}."
        ),
        "record.max_face": (
            "The face furthest from 1/6, {face}: {share}. Some face is that far off in {p_any} of"
            " fair counts; one named in advance in {p_named}."
        ),
        "record.order.title": "Order: doubles after doubles, runs",
        "record.after_double": {
            "one": (
                "Right after a double, the next roll in the same match was a double in {doubles} "
                "of 1 case ({share}; fair: 16.67%; p = {p}: {verdict})."
            ),
            "other": (
                "Right after a double, the next roll in the same match was a double in {doubles} "
                "of {rolls} cases ({share}; fair: 16.67%; p = {p}: {verdict})."
            ),
        },
        "record.longest_run": (
            "The longest run of doubles was {length} in a row; fair dice give a run at least that"
            " long somewhere in a record like this with chance {p}."
        ),
        "record.sources.title": "By source of entropy",
        "record.sources.text": (
            "Rolls where the roller's device added its own entropy, and rolls the server revealed"
            " alone (the computer's)."
        ),
        "record.col.source": "Entropy from",
        "record.col.rolls": "Rolls",
        "record.col.doubles": "Doubles",
        "record.col.p_cells": "p, 36 outcomes",
        "record.col.p_faces": "p, faces",
        "record.col.face": "Face",
        "record.col.count": "Count",
        "record.col.share": "Share (95% interval)",
        "record.summary": "The command's own summary (English)",
        # The audit page's players and way back (issue 22).
        "audit.players": "{first} against {second}",
        "audit.computer": "Computer ({level})",
        "audit.back": "Back to the match",
        # Clock presets and the computer's levels by name (pages, issue 22).
        "preset.bullet": "Bullet",
        "preset.blitz": "Blitz",
        "preset.rapid": "Rapid",
        "unit.seconds": "{n} s",
        "unit.minutes": "{n} min",
        "preset.standard": "Standard",
        "preset.slow": "Slow",
        "level.easy": "easy",
        "level.medium": "medium",
        "level.hard": "hard",
        # dice v2 (issue #25): the filled-in program of every row
        "verify.row": "This roll's program",
        "audit.values": "Values and proofs",
        "audit.values_failed": (
            "The values could not be fetched: the link above opens them as JSON."
        ),
        # The public log (issue 25, dicelog)
        "log.title": "The public log",
        "log.intro": (
            "Every commitment, reveal and state change of every roll on this server is also a "
            "leaf of one public, append-only Merkle tree (RFC 9162). Below: a tree head signed by "
            "the server's log key that includes this match; each roll's leaves and their "
            "inclusion proofs are under its row above. Anyone can watch the log with boardgammon "
            "witness. The head the result dialog showed when the match ended may be an older, "
            "smaller one: the log only grows, so every later head includes the same leaves, and "
            "a witness checks that each head extends the one before."
        ),
        "log.tree_size": "Tree size",
        "log.root_hash": "Root hash",
        "log.timestamp": "Signed at (UTC; in ms since 1970, as signed)",
        "log.signature": "Signature (Ed25519)",
        "log.public_key": "Log key (also at /api/log/public-key)",
        "log.entries": "Log entries (index: event)",
        "log.entry_n": "log entry {index}",
        "log.proofs": "{count} proofs (JSON)",
        "log.event.committed": "committed",
        "log.event.revealed": "revealed",
        "log.event.played": "played",
        "log.event.void": "void",
        "log.check": "Check the leaves and proofs this record lists against the signed head:",
        "fair.log_key": "Public log key (Ed25519) that signs the dice log's tree heads:",
        # Ratings, profiles and leaderboards (issue 23)
        "player.guest": "A guest: guests play unrated.",
        "player.ratings": "Ratings",
        "player.unrated": "No rated match yet (everyone starts at 1500).",
        "player.unrated.short": "unrated",
        "player.variant.standard": "Backgammon",
        "player.variant.nackgammon": "Nackgammon",
        "player.variant.hypergammon": "Hypergammon",
        # Deleted accounts (issue #23): the name shown in their place.
        "player.deleted": "deleted player",
        "player.rating.line": {
            "one": "Rating {rating} (deviation ±{deviation}), {matches} rated match, experience "
                   "{experience}.",
            "other": "Rating {rating} (deviation ±{deviation}), {matches} rated matches, "
                     "experience {experience}.",
        },
        "player.plot": "{variant} rating after each rated match",
        "player.plot.range": "Rating after each rated match, between {low} and {high}.",
        "player.matches": "Matches",
        "player.no_matches": "No matches yet.",
        "player.col.date": "Date",
        "player.col.opponent": "Opponent",
        "player.col.length": "Points",
        "player.col.variant": "Variant",
        "player.col.result": "Result",
        "player.col.rating": "Rating ±",
        "player.col.luck": "Luck",
        "player.result.won": "won",
        "player.result.lost": "lost",
        "player.result.aborted": "aborted",
        "player.result.active": "playing",
        "player.link.match": "match",
        "player.link.audit": "dice audit",
        "player.link.analysis": "analysis",
        "player.prev": "← newer",
        "player.next": "older →",
        "player.page": "page {page} of {pages}",
        "player.dice": "Their dice",
        "player.dice.none": "No revealed roll yet.",
        "player.dice.intro": (
            "This player's own {rolls} revealed rolls (not the "
            "opponents'), tested as on the dice record page:"
        ),
        "player.pr": "PR history",
        "player.pr.none": "No analysed match yet.",
        "player.pr.single": "PR of the one analysed match so far: {pr} (lower is better).",
        "player.pr.range": (
            "PR of each of {count} analysed matches, oldest first; the best {low}, the worst "
            "{high} (lower is better)."
        ),
        "leaderboard.title": "Leaderboard",
        "leaderboard.rule": (
            "Full accounts with at least {min} rated matches in this variant; guests play unrated."
        ),
        "leaderboard.how": "How ratings work",
        "leaderboard.empty": "No one has enough rated matches yet.",
        "leaderboard.col.player": "Player",
        "leaderboard.col.rating": "Rating",
        "leaderboard.col.matches": "Rated matches",
        "ratings.title": "Ratings",
        "ratings.intro": (
            "Every full account has a rating per variant (backgammon, Nackgammon and Hypergammon "
            "apart), starting at 1500. It changes once when a rated match ends, however it ends: "
            "bear-off, a dropped double, a resignation or a lost clock. Guests and games against "
            "the computer are unrated; an unfinished match changes nothing."
        ),
        "ratings.fibs": (
            "The scale is the FIBS formula's: a player rated D points above the opponent wins an "
            "n-point match with probability 1 / (1 + 10^(−D·√n / 2000))."
        ),
        "ratings.glicko": (
            "The rating moves by Glicko-2 (Mark Glickman): beside the rating it keeps a "
            "deviation, how sure it is, so a new player's rating moves fast and a settled one "
            "slowly. Each match counts with the weight of its length: a match of n points weighs "
            "√n / 5, so a rating difference predicts the same match-win chance as on FIBS."
        ),
        "ratings.why": (
            "We chose it by simulating players of known strength: it orders them as well as FIBS "
            "and predicts results better. The numbers and the formulas are in docs/ratings.md of "
            "the source."
        ),
        # dice v2 in the match flow (issue #25, dicewire): the v2 audit page
        "log.event.requested": "requested",
        "log.event.anchor": "chain anchor accepted",
        "log.anchor_seat": "Seat {seat}'s chain anchor",
        "log.anchor_player": "{player}'s chain anchor",
        "log.anchor_proof": "Proof (JSON)",
        "log.check_anchors": (
            "Check that every roll and chain anchor the log holds for this match is in the "
            "record as the log names it, and that the rolls after an anchor used its links "
            "(reads the whole log up to the head):"
        ),
        "col.kind": "Kind",
        "col.roller_source": "Roller's entropy from",
        "col.roller_entropy": "Roller's entropy",
        "col.opponent_source": "Opponent's link",
        "col.opponent_entropy": "Opponent's link (hex)",
        "col.seat": "Seat",
        "col.state": "State",
        "col.opponent_prev_link": "Opponent's link before (hex)",
        "col.opponent_link_steps": "Steps from the link to the one before",
        "col.prev_hash": "Previous entry's hash",
        "col.entry_hash": "Entry hash",
        "col.committed_at": "Committed at",
        "col.requested_at": "Requested at",
        "col.opponent_at": "Link received at",
        "col.revealed_at": "Revealed at",
        "col.played_at": "Played at",
        "col.voided_at": "Voided at",
        "col.verdict_detail": "Why",
        "kind.opening": "opening roll",
        "kind.opening_dice": "opening roll (1st die {first}'s, 2nd {second}'s)",
        "kind.normal": "normal roll",
        "roller.client": "roller's device",
        "roller.server": "server (the computer rolls)",
        "opponent.client": "revealed by the opponent's device",
        "opponent.absent": ("absent: the opponent's device gave no link (a correspondence turn, "
                            "which does not ask it, or a live roll it did not answer in time: "
                            "offline, or not the device that holds the player's chain)"),
        "opponent.none": ("none: the opponent has no chain (the computer, or none registered in "
                          "time)"),
        "verdict.opponent link mismatch": "opponent's link does not match its chain",
        "verdict.void after reveal": "voided after its dice were known",
        "verdict.void after request": "voided after its request, yet its game rolled again",
        "verdict.log mismatch": "does not match the public log",
        "verdict.chain skipped": "took no link of a chain the log shows accepted",
        "verdict.anchor missing": "a chain anchor the log shows is not in the record",
        "verdict.absent too early": ("revealed without the opponent's link before the "
                                     "server's stated wait for it was over"),
        "verdict.left unresolved": "left open while the match rolled again",
        "counts.title": "What these rolls prove",
        "counts.live": (
            "{count} rolls with both devices' entropy: neither player alone, nor the server "
            "with one of them, could foresee them; once the server had the opponent's link, it "
            "could at most have chosen between the roll with it and the roll without it."
        ),
        "counts.computer": (
            "{count} rolls of the computer with its human opponent's device link: the server "
            "alone could not foresee them; once it had that link, it could at most have chosen "
            "between the roll with it and the roll without it."
        ),
        "counts.opponent_absent": (
            "{count} rolls without the opponent's device's link (correspondence turns, which "
            "do not ask it, or live rolls it did not answer in time): the server and the "
            "roller together could have known them early."
        ),
        "counts.no_opponent_device": (
            "{count} rolls whose opponent had no chain: the server and the roller together "
            "could have known them early. That it had none is checked against the public log, "
            "where every chain anchor the server accepted is a leaf (verify.py --log)."
        ),
        "counts.server_only": "{count} rolls where the server drew every input.",
        "mode.live": (
            "A live match, as the public log states (entry {index}, logged with its first "
            "roll): a roll without the opponent's link means that device did not answer within "
            "the server's wait."
        ),
        "mode.correspondence": (
            "A correspondence match, as the public log states (entry {index}, logged with its "
            "first roll): its turns do not ask the opponent's device, so its rolls go without "
            "the opponent's link."
        ),
        "mode.computer": (
            "A match against the computer, as the public log states (entry {index}, logged "
            "with its first roll): the computer's rolls take the link of the human's device "
            "(one without it means that device did not answer within the server's wait: it "
            "was offline, or the match was open only on another device than the one holding "
            "the human's chain); the "
            "human's own rolls have no opponent's device to add a link, so the server and the "
            "human together could have known them early."
        ),
        "mode.wait": (
            "The server waits {seconds} s for the opponent's link before it rolls without it, "
            "as the same entry states; the verifiers check that every roll without the link "
            "waited at least that long after its request."
        ),
        "mode.none": (
            "The public log states no mode for this match (one from before 5 December 2026, "
            "or one with no roll yet)."
        ),
        # dice v2 audit page (issue #25, dice): the intro for v1 records, the v2 program
        "audit.intro_v1": (
            "This match was rolled with version 1 of the protocol, before the three inputs: "
            "each roll mixed the server's committed seed with the roller's entropy only, and its "
            "changes were not all in the public log. Its record remains verifiable, as below."
        ),
        "verify.roll_v2": (
            "This Python program uses only the standard library. It is filled in with the "
            "match's first revealed roll and checks its commitment, the opponent's link, the "
            "dice, the entry hash over every field and time, and the inclusion proofs of its "
            "public log entries; it stops with an error on any mismatch. Every other revealed "
            "roll has the same program, filled in, under its row."
        ),
    },
    "de": {
        "audit.title": "Würfelprotokoll des Matches {match_id}",
        "audit.intro": (
            "Jeder Wurf dieses Matches, beider Seiten, in der Reihenfolge seiner Festlegung. Drei "
            "Eingaben ergeben jeden Wurf: ein geheimer Server-Seed, vor dem Wurf festgelegt und "
            "als sein SHA-256 (die Festlegung) veröffentlicht; Zufall vom Gerät des "
            "Würfelnden, gesendet nach dessen Doppelentscheidung; und das nächste Glied der "
            "Hash-Kette des gegnerischen Geräts, zu Beginn des Matches festgelegt und aufgedeckt, "
            "nachdem der Würfelnde um den Wurf gebeten hat. Der Server deckt seinen Seed zuletzt "
            "auf. Jede Änderung jedes Wurfs, mit ihrer Zeit, ist außerdem ein Blatt eines "
            "öffentlichen, nur wachsenden Logs, dessen signierten Baumkopf jeder beobachten "
            "kann: eine umgeschriebene oder gekürzte Geschichte fällt auf. Die Urteile unten "
            "berechnet der Server bei jedem Aufruf dieser Seite neu."
        ),
        "audit.verified": "Alle aufgedeckten Würfe sind bestätigt, die Hash-Kette ist intakt.",
        "audit.failed": "Prüfung FEHLGESCHLAGEN bei Wurf {roll_id}: {reason}.",
        "audit.chain_head": "Kettenkopf (im Ergebnisdialog am Ende des Matches veröffentlicht)",
        "audit.chain_head_so_far": "Kettenkopf bisher (das Match läuft noch; der Ergebnisdialog "
                                   "veröffentlicht den endgültigen an seinem Ende)",
        "audit.not_found": (
            "Das Match {match_id} hat noch keine Würfe, also gibt es kein Würfelprotokoll."
        ),
        "audit.no_match": "Es gibt kein Match {match_id}.",
        "audit.json": "Dieses Protokoll als JSON",
        "col.seq": "#",
        "col.roll_id": "Wurf-ID",
        "col.player": "Spieler",
        "col.nonce": "Nonce",
        "col.commitment": "Festlegung",
        "col.server_seed": "Server-Seed",
        "col.client_entropy": "Client-Zufall",
        "col.entropy_source": "Zufall von",
        "col.dice": "Würfel",
        "col.verdict": "Urteil",
        "source.client": "Gerät des Würfelnden",
        "source.server": "Server (kein Gerät beteiligt)",
        "verdict.ok": "bestätigt",
        "verdict.pending": "offen: nur die Festlegung ist öffentlich",
        "verdict.never revealed": "nie aufgedeckt (Seed bleibt geheim)",
        "verdict.seed missing": "Seed fehlt",
        "verdict.commitment mismatch": "Festlegung stimmt nicht",
        "verdict.dice mismatch": "Würfel stimmen nicht",
        "verdict.chain broken": "Kette unterbrochen",
        "verdict.malformed": "fehlerhafter Eintrag",
        "verify.title": "Selbst nachprüfen",
        "verify.roll": (
            "Dieses Python-Programm braucht nur die Standardbibliothek. Es ist mit dem ersten "
            "aufgedeckten Wurf des Matches ausgefüllt, prüft Festlegung und Würfel und bricht bei "
            "jeder Abweichung mit einem Fehler ab."
        ),
        "verify.no_roll": "Das Programm erscheint hier, sobald der erste Wurf aufgedeckt ist.",
        "verify.match": (
            "Um das ganze Match samt Kette zu prüfen, lade den Prüfer herunter (eine "
            "Datei, nur Standardbibliothek) und führe ihn mit dem JSON dieses Protokolls aus:"
        ),
        "verify.source": "verify.py herunterladen",
        "verify.openssl": (
            "Dieselbe Prüfung mit der openssl-Kommandozeile: der erste Befehl gibt die "
            "Festlegung aus, der zweite berechnet Block 0 und gibt die Würfel aus (Bytes fc–ff "
            "werden übersprungen; Würfel = Byte mod 6 + 1)."
        ),
        "language": "Sprache",
        "site.home": "Spielen",
        "site.pages": "Über das Spiel",
        "site.fair": "Nachweislich faire Würfel",
        "site.rules": "Regeln",
        "site.skill": "Spielstärke und PR",
        "site.glossary": "Glossar",
        "error.title": "Fehler {status}",
        "error.text": "Der Server konnte diese Anfrage nicht beantworten.",
        "error.title.400": "Ungültige Anfrage",
        "error.text.400": "Der Server konnte diese Anfrage nicht lesen.",
        "error.title.404": "Nicht gefunden",
        "error.text.404": "Unter dieser Adresse gibt es keine Seite.",
        "error.title.405": "Nicht erlaubt",
        "error.text.405": "Diese Adresse nimmt diese Art von Anfrage nicht an.",
        "error.title.413": "Zu groß",
        "error.text.413": "Die Anfrage ist größer, als der Server liest.",
        "error.title.422": "Ungültige Anfrage",
        "error.text.422": "Die Abfrage dieser Adresse konnte nicht gelesen werden.",
        "error.title.503": "Nicht verfügbar",
        "error.text.503": (
            "Der Server kann gerade nicht antworten. "
            "Versuch es in ein paar Sekunden erneut."),
        "error.database_unavailable": (
            "Der Server erreicht seine Datenbank gerade nicht. "
            "Versuch es in ein paar Sekunden erneut."),
        "error.home": "Zur Lobby",
        "error.player": "Es gibt keinen Spieler „{name}“.",
        "error.variant": "Es gibt keine Rangliste für „{variant}“.",
        "error.page_number": "„{got}“ ist keine Seitenzahl: Die Seiten sind ab 1 nummeriert.",
        "error.page_past": (
            "Die Matches von {name} enden auf Seite {pages}: Danach gibt es keine Seite."
        ),
        "error.player_page": "Die Seite von {name}",
        "fair.box": "Match-ID",
        "fair.submit": "Würfe prüfen",
        "fair.malformed": (
            "{match} ist keine Match-ID. Eine Match-ID beginnt mit mat_, gefolgt von "
            "Buchstaben und Ziffern, z. B. mat_3q7kzx2bq4…; Ergebnisanzeige und Prüfseite zeigen "
            "sie."
        ),
        "fair.unknown": "Für das Match {match} gibt es auf diesem Server kein Würfelprotokoll.",
        "fair.control": (
            "{match} enthält ein Steuerzeichen ({found}), das keine Match-ID enthält: Kopiere "
            "die ID erneut aus der Ergebnisanzeige oder der Prüfseite."
        ),
        "audit.about": "Wie nachweislich faire Würfel funktionieren",
        "site.odds": "Wahrscheinlichkeitsrechner",
        "odds.intro": (
            "Genaue Chancen für die Fragen, die Spieler am Brett zählen. Treffen, Einwürfeln "
            "und Abtragen werden aus den legalen Zügen des Spiels über die 36 Würfe zweier "
            "Würfel gezählt: Ein Wurf zählt, wenn irgendein legaler Zug damit das Gefragte tut, "
            "und jeder Wurf außer einem Pasch fällt auf zwei Arten (6-5 und 5-6)."
        ),
        "odds.compute": "Zählen",
        "odds.result": "{count} von 36 Würfen ({percent})",
        "odds.which": "Die Würfe, die es schaffen (Pasch einmal, die anderen doppelt):",
        "odds.none": "Kein Wurf schafft es.",
        "odds.hit.split": "{direct} direkt, {indirect} indirekt (kombiniert).",
        "odds.col.direct": "Direkt",
        "odds.col.indirect": "Indirekt",
        "odds.error.distance": "Ein Blot kann 1 bis {high} Augen entfernt sein, nicht {got}.",
        "odds.error.blocked_between": (
            "Blockierte Felder liegen zwischen dem Stein und dem Blot, 1 bis {high} Augen "
            "entfernt, nicht {got}."
        ),
        "odds.error.blocked_many": (
            "Die 15 Steine des Gegners ergeben den Blot und höchstens 7 Felder, nicht {got}."
        ),
        "odds.error.closed": "0 bis 6 Felder können geschlossen sein, nicht {got}.",
        "odds.error.bar": "1 oder 2 Steine können auf der Bar sein, nicht {got}.",
        "odds.error.bearoff_points": (
            "Steine stehen auf den Feldern 1–6, je 0 oder mehr, nicht {got}."
        ),
        "odds.error.bearoff_total": "1 bis 15 Steine können abgetragen werden, nicht {got}.",
        "odds.error.bearoff_six": "Sechs Anzahlen, für die Felder 1–6, nicht {got}.",
        "odds.error.numbers": (
            "Bitte ganze Zahlen, durch Kommas oder Leerzeichen getrennt, nicht „{got}“."
        ),
        "odds.error.number": "„{name}“ nimmt eine ganze Zahl, nicht „{got}“.",
        "odds.error.range": "„{name}“ nimmt eine ganze Zahl von {low} bis {high}, nicht {got}.",
        "odds.error.rolls_times_games": (
            "Würfe × Spiele dürfen höchstens {high} sein, nicht {rolls} × {games}."
        ),
        "odds.hit.title": "Einen Blot treffen",
        "odds.hit.text": (
            "Einer deiner Steine und ein gegnerischer Blot einige Augen davor. Direkte Schüsse "
            "nutzen einen Würfel; kombinierte addieren beide Würfel oder drei, vier Schritte "
            "eines Paschs und halten auf den Feldern dazwischen, die der Gegner halten kann."
        ),
        "odds.distance": "Augen bis zum Blot (1–24)",
        "odds.blocked": (
            "Vom Gegner gehaltene Felder dazwischen, in Augen von deinem Stein (z. B. 3, 5)"
        ),
        "odds.shots": "Ohne etwas dazwischen",
        "odds.col.distance": "Augen",
        "odds.col.throws": "Würfe von 36",
        "odds.col.chance": "Chance",
        "odds.enter.title": "Von der Bar einwürfeln",
        "odds.enter.text": (
            "Ein Würfel setzt ein, wenn sein Feld im Heimfeld des Gegners offen ist. Ein Stein "
            "kommt herein, außer beide Würfel sind zu; zwei Steine kommen beide nur herein, wenn "
            "beide Würfel offen sind (ein Pasch einer offenen Zahl bringt beide herein)."
        ),
        "odds.col.closed": "Geschlossene Felder",
        "odds.col.one": "Ein Stein kommt herein",
        "odds.col.two": "Beide von zwei",
        "odds.bear.title": "Abtragen mit einem Wurf",
        "odds.bear.text": (
            "Wie viele Steine auf jedem Feld deines Heimfelds stehen: die Chance, sie alle mit dem "
            "nächsten Wurf abzutragen."
        ),
        "odds.bear.point": "Steine auf den Feldern 1 bis 6, in dieser Reihenfolge",
        "odds.doubles.title": "Pasch",
        "odds.doubles.text": (
            "Pasch-Serien mit zwei fairen Würfeln, du und dein Gegner würfelt je N-mal, genau "
            "gezählt wie vom Befehl boardgammon odds doubles."
        ),
        "odds.rolls": "Würfe je Seite (N)",
        "odds.margin": "Abstand (D)",
        "odds.games": "Spiele (G)",
        "odds.expected": "Erwartete Pasche in N Würfen",
        "odds.p_at_least_one_double": "Mindestens ein Pasch",
        "odds.p_run_of_2": "2 Pasche hintereinander",
        "odds.p_run_of_3": "3 Pasche hintereinander",
        "odds.p_opponent_more_by_margin": "Der Gegner würfelt mindestens D Pasche mehr als du",
        "odds.p_you_more_by_margin": "Du würfelst mindestens D Pasche mehr als der Gegner",
        "odds.p_opponent_run_of_3_within_games": (
            "Der Gegner würfelt in mindestens einem von G Spielen 3 Pasche hintereinander"
        ),
        "odds.kniffel.title": "Kniffel",
        "odds.kniffel.text": (
            "Fünf Würfel mit derselben Augenzahl in 1, 2 oder 3 Würfen: mit bestem Halten "
            "(optimal), immer alle fünf neu würfeln, und die größte Gruppe halten "
            "(boardgammon odds kniffel)."
        ),
        "odds.col.rolls": "Würfe",
        "odds.col.optimal": "Optimal halten",
        "odds.col.always": "Alle neu",
        "odds.col.fixed": "Größte Gruppe halten",
        "site.record": "Würfelstatistik",
        "record.intro": (
            "Jeder aufgedeckte Wurf jedes Online-Matches auf diesem Server, beider Seiten, gezählt"
            " und geprüft wie vom Befehl boardgammon stats dice-report. Faire Würfel geben jedem "
            "der 36 geordneten Ergebnisse (erster Würfel, zweiter Würfel) dieselbe Chance, 1/36, "
            "und einem Pasch 1/6."
        ),
        "record.empty": (
            "Auf diesem Server wurde noch kein Wurf aufgedeckt; es gibt nichts zu zählen."
        ),
        "record.range": {
            "one": (
                "1 Wurf ({dice} Würfel), aufgedeckt von {first} bis {last} (UTC). Dieser Bericht "
                "entstand {made} und wird höchstens einmal am Tag neu erstellt."
            ),
            "other": (
                "{rolls} Würfe ({dice} Würfel), aufgedeckt von {first} bis {last} (UTC). Dieser "
                "Bericht entstand {made} und wird höchstens einmal am Tag neu erstellt."
            ),
        },
        "record.rough": (
            "Aber je Feld werden nur {expected} erwartet, weniger als die 5, die die "
            "Chi-Quadrat-Näherung braucht; dieser p-Wert ist also nur grob."
        ),
        "record.rough.short": "grob: {expected} je Feld erwartet, unter 5",
        "record.download": "Die Zählung herunterladen",
        "record.picture.cells": "{rolls} Würfe: Anzahl je geordnetem Ergebnis",
        "record.picture.second_die": "zweiter Würfel",
        "record.picture.first_die": "erster Würfel",
        "record.picture.colour_bar": "% über (rot) / unter (blau) n/36",
        "record.picture.faces": "{dice} Würfel: Anteil jeder Augenzahl",
        "record.picture.face": "Augenzahl",
        "record.picture.percent": "% aller Würfel",
        "record.picture.share": "Anteil, 95-%-Intervall",
        "record.picture.fair": "fair: 1/6",
        "record.plot": (
            "Links: die Anzahl jedes geordneten Ergebnisses, gefärbt nach der Abweichung von der "
            "fairen Anzahl. Rechts: der Anteil jeder Augenzahl an allen Würfeln mit 95-%-Interval"
            "l, gegen 1/6."
        ),
        "record.table.title": "Die 36 Ergebnisse",
        "record.table.text": (
            "Zeilen: erster Würfel; Spalten: zweiter Würfel. Faire Würfel gäben je {expected}."
        ),
        "record.doubles.title": "Pasch",
        "record.doubles.text": (
            "{doubles} Pasche = {share} (faire Würfel: 16,67\u00a0%; 95-%-Intervall {low}–{high}; "
            "p = {p}: {verdict})."
        ),
        "record.faces.title": "Augenzahlen",
        "record.chi2.title": "Chi-Quadrat-Tests",
        "record.chi2.cells": "Die 36 geordneten Ergebnisse zusammen",
        "record.chi2.faces": "Die sechs Augenzahlen zusammen",
        "record.chi2.line": (
            "{name}: Chi-Quadrat {statistic}, {df} Freiheitsgrade, p = {p}: {verdict}."
        ),
        "record.verdict.fair": "ganz im Rahmen fairer Würfel",
        "record.verdict.unusual": (
            "ungewöhnlich für faire Würfel, doch etwa jeder 20. Test ist zufällig so ungewöhnlich"
        ),
        "record.verdict.unlikely": "mit fairen Würfeln sehr unwahrscheinlich",
        "record.extremes.title": "Das auffälligste Ergebnis und die auffälligste Augenzahl",
        "record.extremes.text": (
            "Wer den extremsten Wert erst nach dem Hinsehen auswählt, hält ihn für seltener, als "
            "er ist; deshalb steht jeder doppelt da: die Chance, dass faire Würfel irgendein Erge"
            "bnis (oder eine Augenzahl) so weit abweichen lassen, und die für ein vorher genannte"
            "s."
        ),
        "record.max_cell": (
            "Das häufigste Ergebnis, {outcome}: {count} ({excess} über dem Mittel). Irgendein Erg"
            "ebnis liegt so weit vorn in {p_any} fairer Zählungen dieser Größe; ein vorher genann"
            "tes in {p_named}."
        ),
        "record.max_face": (
            "Die Augenzahl am weitesten von 1/6, {face}: {share}. Irgendeine Augenzahl weicht so "
            "weit ab in {p_any} fairer Zählungen; eine vorher genannte in {p_named}."
        ),
        "record.order.title": "Reihenfolge: Pasch nach Pasch, Serien",
        "record.after_double": {
            "one": (
                "Direkt nach einem Pasch war der nächste Wurf desselben Matches in {doubles} von "
                "1 Fall ein Pasch ({share}; fair: 16,67\u00a0%; p = {p}: {verdict})."
            ),
            "other": (
                "Direkt nach einem Pasch war der nächste Wurf desselben Matches in {doubles} von "
                "{rolls} Fällen ein Pasch ({share}; fair: 16,67\u00a0%; p = {p}: {verdict})."
            ),
        },
        "record.longest_run": (
            "Die längste Pasch-Serie war {length} hintereinander; faire Würfel ergeben irgendwo i"
            "n einem solchen Protokoll mit Chance {p} eine mindestens so lange Serie."
        ),
        "record.sources.title": "Nach Zufallsquelle",
        "record.sources.text": (
            "Würfe, zu denen das Gerät des Würfelnden eigenen Zufall beitrug, und Würfe, die der "
            "Server allein aufdeckte (die des Computers)."
        ),
        "record.col.source": "Zufall von",
        "record.col.rolls": "Würfe",
        "record.col.doubles": "Pasche",
        "record.col.p_cells": "p, 36 Ergebnisse",
        "record.col.p_faces": "p, Augenzahlen",
        "record.col.face": "Augenzahl",
        "record.col.count": "Anzahl",
        "record.col.share": "Anteil (95-%-Intervall)",
        "record.summary": "Die Zusammenfassung des Befehls (englisch)",
        # The audit page's players and way back (issue 22).
        "audit.players": "{first} gegen {second}",
        "audit.computer": "Computer ({level})",
        "audit.back": "Zurück zum Match",
        # Clock presets and the computer's levels by name (pages, issue 22).
        "preset.bullet": "Bullet",
        "preset.blitz": "Blitz",
        "preset.rapid": "Schnell",
        "unit.seconds": "{n} s",
        "unit.minutes": "{n} min",
        "preset.standard": "Standard",
        "preset.slow": "Langsam",
        "level.easy": "leicht",
        "level.medium": "mittel",
        "level.hard": "schwer",
        # dice v2 (issue #25): the filled-in program of every row
        "verify.row": "Programm dieses Wurfs",
        "audit.values": "Werte und Beweise",
        "audit.values_failed": (
            "Die Werte ließen sich nicht laden: der Link oben öffnet sie als JSON."
        ),
        # Das öffentliche Log (Issue 25, dicelog)
        "log.title": "Das öffentliche Log",
        "log.intro": (
            "Jede Festlegung, jedes Aufdecken und jede Zustandsänderung jedes Wurfs auf diesem "
            "Server ist auch ein Blatt eines öffentlichen Merkle-Baums, an den nur angehängt "
            "wird (RFC 9162). Unten: ein vom Log-Schlüssel des Servers signierter Baumkopf, der "
            "dieses Match enthält; die Blätter jedes Wurfs und ihre Inklusionsbeweise stehen "
            "oben unter seiner Zeile. Jeder kann das Log mit boardgammon witness beobachten. "
            "Der Baumkopf, den das Ergebnisfenster am Ende des Matches zeigte, kann ein älterer, "
            "kleinerer sein: Das Log wächst nur, also enthält jeder spätere Kopf dieselben "
            "Blätter, und ein Zeuge prüft, dass jeder Kopf den vorigen fortsetzt."
        ),
        "log.tree_size": "Baumgröße",
        "log.root_hash": "Wurzel-Hash",
        "log.timestamp": "Signiert um (UTC; in ms seit 1970, wie signiert)",
        "log.signature": "Signatur (Ed25519)",
        "log.public_key": "Log-Schlüssel (auch unter /api/log/public-key)",
        "log.entries": "Log-Einträge (Index: Ereignis)",
        "log.entry_n": "Log-Eintrag {index}",
        "log.proofs": "{count} Beweise (JSON)",
        "log.event.committed": "festgelegt",
        "log.event.revealed": "aufgedeckt",
        "log.event.played": "gespielt",
        "log.event.void": "verfallen",
        "log.check": (
            "Die Blätter und Beweise, die dieses Protokoll aufführt, gegen den signierten Kopf "
            "prüfen:"
        ),
        "fair.log_key": (
            "Öffentlicher Log-Schlüssel (Ed25519), der die Baumköpfe des Würfel-Logs signiert:"
        ),
        # Ratings, profiles and leaderboards (issue 23)
        "player.guest": "Ein Gast: Gäste spielen ohne Wertung.",
        "player.ratings": "Wertungen",
        "player.unrated": "Noch kein gewertetes Match (alle beginnen bei 1500).",
        "player.unrated.short": "ungewertet",
        "player.variant.standard": "Backgammon",
        "player.variant.nackgammon": "Nackgammon",
        "player.variant.hypergammon": "Hypergammon",
        # Deleted accounts (issue #23): the name shown in their place.
        "player.deleted": "gelöschter Spieler",
        "player.rating.line": {
            "one": "Wertung {rating} (Abweichung ±{deviation}), {matches} gewertetes Match, "
                   "Erfahrung {experience}.",
            "other": "Wertung {rating} (Abweichung ±{deviation}), {matches} gewertete Matches, "
                     "Erfahrung {experience}.",
        },
        "player.plot": "{variant}-Wertung nach jedem gewerteten Match",
        "player.plot.range": "Wertung nach jedem gewerteten Match, zwischen {low} und {high}.",
        "player.matches": "Matches",
        "player.no_matches": "Noch keine Matches.",
        "player.col.date": "Datum",
        "player.col.opponent": "Gegner",
        "player.col.length": "Punkte",
        "player.col.variant": "Variante",
        "player.col.result": "Ergebnis",
        "player.col.rating": "Wertung ±",
        "player.col.luck": "Glück",
        "player.result.won": "gewonnen",
        "player.result.lost": "verloren",
        "player.result.aborted": "abgebrochen",
        "player.result.active": "läuft",
        "player.link.match": "Match",
        "player.link.audit": "Würfelprüfung",
        "player.link.analysis": "Analyse",
        "player.prev": "← neuere",
        "player.next": "ältere →",
        "player.page": "Seite {page} von {pages}",
        "player.dice": "Eigene Würfe",
        "player.dice.none": "Noch kein aufgedeckter Wurf.",
        "player.dice.intro": (
            "Die {rolls} aufgedeckten Würfe dieses Spielers (nicht die der "
            "Gegner), geprüft wie auf der Seite der Würfelstatistik:"
        ),
        "player.pr": "PR-Verlauf",
        "player.pr.none": "Noch kein analysiertes Match.",
        "player.pr.single": (
            "PR des bisher einzigen analysierten Matches: {pr} (niedriger ist besser)."),
        "player.pr.range": (
            "PR jedes der {count} analysierten Matches, ältestes zuerst; das beste {low}, das "
            "schlechteste {high} (niedriger ist besser)."
        ),
        "leaderboard.title": "Bestenliste",
        "leaderboard.rule": (
            "Volle Konten mit mindestens {min} gewerteten Matches in dieser Variante; Gäste "
            "spielen ohne Wertung."
        ),
        "leaderboard.how": "Wie die Wertung funktioniert",
        "leaderboard.empty": "Noch niemand hat genug gewertete Matches.",
        "leaderboard.col.player": "Spieler",
        "leaderboard.col.rating": "Wertung",
        "leaderboard.col.matches": "Gewertete Matches",
        "ratings.title": "Wertungen",
        "ratings.intro": (
            "Jedes volle Konto hat eine Wertung je Variante (Backgammon, Nackgammon und "
            "Hypergammon getrennt), beginnend bei 1500. Sie ändert sich einmal, wenn ein "
            "gewertetes Match endet, wie auch immer es endet: Abtragen, ein abgelehntes Doppel, "
            "Aufgabe oder abgelaufene Uhr. Gäste und Matches gegen den Computer werden nicht "
            "gewertet; ein unbeendetes Match ändert nichts."
        ),
        "ratings.fibs": (
            "Die Skala ist die der FIBS-Formel: Wer D Punkte über dem Gegner steht, gewinnt ein "
            "Match auf n Punkte mit der Wahrscheinlichkeit 1 / (1 + 10^(−D·√n / 2000))."
        ),
        "ratings.glicko": (
            "Die Wertung bewegt sich nach Glicko-2 (Mark Glickman): Neben der Wertung führt sie "
            "eine Abweichung, wie sicher sie ist; so bewegt sich die Wertung neuer Spieler "
            "schnell und die erfahrener langsam. Jedes Match zählt mit dem Gewicht seiner Länge: "
            "ein Match auf n Punkte wiegt √n / 5, sodass ein Wertungsunterschied dieselbe "
            "Gewinnchance vorhersagt wie bei FIBS."
        ),
        "ratings.why": (
            "Gewählt haben wir sie, indem wir Spieler bekannter Stärke simuliert haben: Sie "
            "ordnet sie so gut wie FIBS und sagt Ergebnisse besser voraus. Zahlen und Formeln "
            "stehen in docs/ratings.md im Quelltext."
        ),
        # dice v2 in the match flow (issue #25, dicewire): the v2 audit page
        "log.event.requested": "angefordert",
        "log.event.anchor": "Kettenanker angenommen",
        "log.anchor_seat": "Kettenanker von Sitz {seat}",
        "log.anchor_player": "Kettenanker von {player}",
        "log.anchor_proof": "Beweis (JSON)",
        "log.check_anchors": (
            "Prüfen, dass jeder Wurf und jeder Kettenanker, den das Log für dieses Match "
            "enthält, so im Protokoll steht, wie das Log ihn nennt, und die Würfe nach einem "
            "Anker seine Glieder verwendet haben (liest das ganze Log bis zum Kopf):"
        ),
        "col.kind": "Art",
        "col.roller_source": "Zufall des Würfelnden von",
        "col.roller_entropy": "Zufall des Würfelnden",
        "col.opponent_source": "Glied des Gegners",
        "col.opponent_entropy": "Glied des Gegners (hex)",
        "col.seat": "Sitz",
        "col.state": "Stand",
        "col.opponent_prev_link": "Vorheriges Glied des Gegners (hex)",
        "col.opponent_link_steps": "Schritte vom Glied zum vorherigen",
        "col.prev_hash": "Hash des vorigen Eintrags",
        "col.entry_hash": "Hash des Eintrags",
        "col.committed_at": "Festgelegt um",
        "col.requested_at": "Angefordert um",
        "col.opponent_at": "Glied erhalten um",
        "col.revealed_at": "Aufgedeckt um",
        "col.played_at": "Gespielt um",
        "col.voided_at": "Verworfen um",
        "col.verdict_detail": "Grund",
        "kind.opening": "Eröffnungswurf",
        "kind.opening_dice": "Eröffnungswurf (1. Würfel: {first}, 2. Würfel: {second})",
        "kind.normal": "normaler Wurf",
        "roller.client": "Gerät des Würfelnden",
        "roller.server": "Server (der Computer würfelt)",
        "opponent.client": "vom Gerät des Gegners aufgedeckt",
        "opponent.absent": ("fehlt: das Gerät des Gegners gab kein Glied (ein Zug einer "
                            "Fernpartie, der es nicht fragt, oder ein Live-Wurf, auf den es "
                            "nicht rechtzeitig antwortete: offline, oder nicht das Gerät mit der "
                            "Kette des Spielers)"),
        "opponent.none": ("keins: der Gegner hat keine Kette (der Computer, oder keine rechtzeitig "
                          "angemeldet)"),
        "verdict.opponent link mismatch": "Glied des Gegners passt nicht zu seiner Kette",
        "verdict.void after reveal": "verfallen, nachdem die Würfel bekannt waren",
        "verdict.void after request": ("nach der Anfrage verfallen, doch im selben Spiel "
                                       "neu gewürfelt"),
        "verdict.log mismatch": "stimmt nicht mit dem öffentlichen Protokoll überein",
        "verdict.chain skipped": ("kein Glied einer Kette genommen, die das Log als "
                                  "angenommen zeigt"),
        "verdict.anchor missing": "ein Kettenanker aus dem Log fehlt im Protokoll",
        "verdict.absent too early": ("ohne das Glied des Gegners aufgedeckt, bevor die "
                                     "festgehaltene Wartezeit des Servers vorbei war"),
        "verdict.left unresolved": "offen gelassen, während das Match neu würfelte",
        "counts.title": "Was diese Würfe beweisen",
        "counts.live": (
            "{count} Würfe mit dem Zufall beider Geräte: weder ein Spieler allein noch der "
            "Server mit einem von ihnen konnte sie vorher kennen; sobald der Server das Glied "
            "des Gegners hatte, konnte er höchstens zwischen dem Wurf mit ihm und dem Wurf "
            "ohne es wählen."
        ),
        "counts.computer": (
            "{count} Würfe des Computers mit dem Glied vom Gerät seines menschlichen Gegners: "
            "der Server allein konnte sie nicht vorher kennen; sobald er dieses Glied hatte, "
            "konnte er höchstens zwischen dem Wurf mit ihm und dem Wurf ohne es wählen."
        ),
        "counts.opponent_absent": (
            "{count} Würfe ohne das Glied des Gegnergeräts (Züge einer Fernpartie, die es "
            "nicht fragen, oder Live-Würfe, auf die es nicht rechtzeitig antwortete): "
            "Server und Würfelnder zusammen hätten sie früh kennen können."
        ),
        "counts.no_opponent_device": (
            "{count} Würfe, deren Gegner keine Kette hatte: Server und Würfelnder zusammen "
            "hätten sie früh kennen können. Dass er keine hatte, wird am öffentlichen Log "
            "geprüft, in dem jeder vom Server angenommene Kettenanker ein Blatt ist "
            "(verify.py --log)."
        ),
        "counts.server_only": "{count} Würfe, bei denen der Server alle Eingaben zog.",
        "mode.live": (
            "Ein Live-Match, wie das öffentliche Log festhält (Eintrag {index}, mit seinem "
            "ersten Wurf geloggt): Ein Wurf ohne das Glied des Gegners heißt, dass dessen Gerät "
            "nicht innerhalb der Wartezeit des Servers antwortete."
        ),
        "mode.correspondence": (
            "Eine Fernpartie, wie das öffentliche Log festhält (Eintrag {index}, mit ihrem "
            "ersten Wurf geloggt): Ihre Züge fragen das Gerät des Gegners nicht; ihre Würfe "
            "kommen daher ohne sein Glied aus."
        ),
        "mode.computer": (
            "Ein Match gegen den Computer, wie das öffentliche Log festhält (Eintrag {index}, "
            "mit seinem ersten Wurf geloggt): Die Würfe des Computers nehmen das Glied vom "
            "Gerät des Menschen (einer ohne es heißt, dass dieses Gerät nicht innerhalb der "
            "Wartezeit des Servers antwortete: es war offline, oder das Match war nur auf einem "
            "anderen Gerät offen als dem mit der Kette des Menschen); die eigenen Würfe des "
            "Menschen haben kein Gegnergerät, das ein Glied beisteuert: Server und Mensch "
            "zusammen hätten sie früh kennen können."
        ),
        "mode.wait": (
            "Der Server wartet {seconds} s auf das Glied des Gegners, bevor er ohne es würfelt, "
            "wie derselbe Eintrag festhält; die Prüfprogramme prüfen, dass jeder Wurf ohne das "
            "Glied nach seiner Anfrage mindestens so lange gewartet hat."
        ),
        "mode.none": (
            "Das öffentliche Log hält für dieses Match keine Spielart fest (ein Match von vor "
            "dem 5. Dezember 2026 oder eines ohne Wurf)."
        ),
        # Würfel-v2-Prüfseite (Issue #25, dice): Einleitung für v1-Protokolle, das v2-Programm
        "audit.intro_v1": (
            "Dieses Match wurde mit Version 1 des Protokolls gewürfelt, vor den drei Eingaben: "
            "jeder Wurf mischte den festgelegten Seed des Servers nur mit dem Zufall des "
            "Würfelnden, und nicht alle seine Änderungen stehen im öffentlichen Log. Sein "
            "Protokoll bleibt prüfbar, wie unten."
        ),
        "verify.roll_v2": (
            "Dieses Python-Programm braucht nur die Standardbibliothek. Es ist mit dem ersten "
            "aufgedeckten Wurf des Matches ausgefüllt und prüft seine Festlegung, das Glied des "
            "Gegners, die Würfel, den Eintrags-Hash über jedes Feld und jede Zeit und die "
            "Einschlussbeweise seiner Einträge im öffentlichen Log; bei jeder Abweichung bricht "
            "es mit einem Fehler ab. Jeder andere aufgedeckte Wurf hat dasselbe Programm, "
            "ausgefüllt, unter seiner Zeile."
        ),
    },
    "ja": {
        "audit.title": "対戦 {match_id} のダイス記録",
        "audit.intro": (
            "この対戦の両者のすべてのロールを、コミットされた順に示します。各ロールは3つの入力から"
            "決まります。ロール前に固定され SHA-256（コミットメント）として公開される秘密のサーバー"
            "シード、振る人のキューブ判断の後に送られる振る人の端末のエントロピー、そして対戦開始時"
            "に固定され、振る人がロールを求めた後に公開される相手の端末のハッシュチェーンの次の"
            "リンクです。サーバーは自分のシードを最後に公開します。各ロールのすべての変化は時刻と"
            "ともに公開の追記専用ログの葉にもなり、その署名付きツリーヘッドは誰でも監視できるため、"
            "書き換えや切り詰めは発覚します。下の判定は、このページを開くたびにサーバーが計算し直し"
            "ています。"
        ),
        "audit.verified": "公開済みのロールはすべて検証され、ハッシュチェーンは無傷です。",
        "audit.failed": "ロール {roll_id} で検証に失敗しました：{reason}。",
        "audit.chain_head": "チェーンヘッド（対戦終了時に結果画面で公開）",
        "audit.chain_head_so_far": ("現時点のチェーンヘッド（対戦は続行中。最終のものは終了時に"
                                    "結果画面で公開）"),
        "audit.not_found": "対戦 {match_id} にはまだロールがないため、ダイス記録はありません。",
        "audit.no_match": "対戦 {match_id} はありません。",
        "audit.json": "この記録の JSON",
        "col.seq": "#",
        "col.roll_id": "ロール ID",
        "col.player": "プレイヤー",
        "col.nonce": "ノンス",
        "col.commitment": "コミットメント",
        "col.server_seed": "サーバーシード",
        "col.client_entropy": "クライアントエントロピー",
        "col.entropy_source": "エントロピー元",
        "col.dice": "ダイス",
        "col.verdict": "判定",
        "source.client": "振る人の端末",
        "source.server": "サーバー（端末の関与なし）",
        "verdict.ok": "検証済み",
        "verdict.pending": "未公開：コミットメントのみ公開",
        "verdict.never revealed": "未公開のまま（シードは秘密）",
        "verdict.seed missing": "シードがない",
        "verdict.commitment mismatch": "コミットメント不一致",
        "verdict.dice mismatch": "ダイス不一致",
        "verdict.chain broken": "チェーン破損",
        "verdict.malformed": "不正なエントリ",
        "verify.title": "自分で検証する",
        "verify.roll": (
            "この Python プログラムは標準ライブラリだけを使います。対戦で最初に公開されたロールが"
            "埋め込まれており、コミットメントとダイスを確認し、不一致があればエラーで停止します。"
        ),
        "verify.no_roll": "最初のロールが公開されると、ここにプログラムが表示されます。",
        "verify.match": (
            "チェーンを含めて対戦全体を確認するには、検証プログラム"
            "（1 ファイル、標準ライブラリのみ）をダウンロードし、"
            "この記録の JSON に対して実行してください："
        ),
        "verify.source": "verify.py をダウンロード",
        "verify.openssl": (
            "openssl コマンドラインでの同じ確認：最初のコマンドはコミットメントを、2 番目は"
            "ブロック 0 を計算してダイスを表示します"
            "（バイト fc–ff は飛ばし、ダイス = バイト mod 6 + 1）。"
        ),
        "language": "言語",
        "site.home": "対戦する",
        "site.pages": "ゲームについて",
        "site.fair": "検証可能な公正ダイス",
        "site.rules": "ルール",
        "site.skill": "棋力と PR",
        "site.glossary": "用語集",
        "error.title": "エラー {status}",
        "error.text": "サーバーはこのリクエストに応答できませんでした。",
        "error.title.400": "不正なリクエスト",
        "error.text.400": "サーバーはこのリクエストを読み取れませんでした。",
        "error.title.404": "見つかりません",
        "error.text.404": "このアドレスにはページがありません。",
        "error.title.405": "許可されていません",
        "error.text.405": "このアドレスはこの種類のリクエストを受け付けません。",
        "error.title.413": "大きすぎます",
        "error.text.413": "リクエストがサーバーの読み取れる大きさを超えています。",
        "error.title.422": "不正なリクエスト",
        "error.text.422": "このアドレスのクエリを読み取れませんでした。",
        "error.title.503": "利用できません",
        "error.text.503": "サーバーは現在応答できません。数秒後にもう一度お試しください。",
        "error.database_unavailable": (
            "サーバーは現在データベースに接続できません。数秒後にもう一度お試しください。"),
        "error.home": "ロビーへ",
        "error.player": "プレイヤー「{name}」はいません。",
        "error.variant": "「{variant}」のランキングはありません。",
        "error.page_number": "「{got}」はページ番号ではありません。ページは1から数えます。",
        "error.page_past": (
            "{name} の対戦は {pages} ページまでです。それより後のページはありません。"
        ),
        "error.player_page": "{name} のページ",
        "fair.box": "対戦 ID",
        "fair.submit": "ロールを検証",
        "fair.malformed": (
            "{match} は対戦 ID ではありません。対戦 ID は mat_ の後に英数字が続きます"
            "（例：mat_3q7kzx2bq4…）。結果画面と監査ページに表示されます。"
        ),
        "fair.unknown": "このサーバーには対戦 {match} のダイス記録はありません。",
        "fair.control": (
            "{match} には制御文字（{found}）が含まれています。対戦 ID には含まれません。"
            "結果画面か監査ページから ID をもう一度コピーしてください。"
        ),
        "audit.about": "検証可能な公正ダイスの仕組み",
        "site.odds": "確率計算",
        "odds.intro": (
            "盤上でプレイヤーが数える確率を正確に示します。ヒット、エンター、ベアオフの数字は、"
            "2 個のダイスの 36 通りについてゲーム自身の合法手から数えています。"
            "求めることができる合法手が 1 つでもあればそのロールを数え、ゾロ目以外は 2 通り（6-5 と"
            " 5-6）あります。"
        ),
        "odds.compute": "数える",
        "odds.result": "36 通り中 {count} 通り（{percent}）",
        "odds.which": "できるロール（ゾロ目は 1 通り、それ以外は 2 通り）：",
        "odds.none": "できるロールはありません。",
        "odds.hit.split": "直接 {direct} 通り、間接 {indirect} 通り（組み合わせ）。",
        "odds.col.direct": "直接",
        "odds.col.indirect": "間接",
        "odds.error.distance": "ブロットまでは1〜{high}ピップです（{got}ではなく）。",
        "odds.error.blocked_between": (
            "ブロックされたポイントはチェッカーとブロットの間、1〜{high}ピップにあります（{got}ではなく）。"
        ),
        "odds.error.blocked_many": (
            "相手の15枚ではブロットと最大7ポイントまでです（{got}ではなく）。"
        ),
        "odds.error.closed": "閉じたポイントは0〜6です（{got}ではなく）。",
        "odds.error.bar": "バーのチェッカーは1枚か2枚です（{got}ではなく）。",
        "odds.error.bearoff_points": "チェッカーは1〜6ポイントに0枚以上置きます（{got}ではなく）。",
        "odds.error.bearoff_total": "ベアオフできるのは1〜15枚です（{got}ではなく）。",
        "odds.error.bearoff_six": "1〜6ポイントの6つの枚数を入れてください（{got}個ではなく）。",
        "odds.error.numbers": "整数をカンマか空白で区切って入れてください（「{got}」ではなく）。",
        "odds.error.number": "「{name}」には整数を1つ入れてください（「{got}」ではなく）。",
        "odds.error.range": "「{name}」は{low}〜{high}の整数です（{got}ではなく）。",
        "odds.error.rolls_times_games": (
            "ロール数×ゲーム数は最大{high}です（{rolls} × {games}ではなく）。"
        ),
        "odds.hit.title": "ブロットをヒットする",
        "odds.hit.text": (
            "あなたの駒 1 個と、その何ピップか先にある相手のブロット。ダイレクトショットはダイス 1 "
            "個、"
            "コンビネーションショットは 2 個の合計かゾロ目の 3〜4 歩で、途中のポイントに止まります"
            "。"
            "途中のポイントは相手が持っていることがあります。"
        ),
        "odds.distance": "ブロットまでのピップ（1〜24）",
        "odds.blocked": "途中で相手が持つポイント（あなたの駒からのピップ、例：3, 5）",
        "odds.shots": "途中に何もない場合",
        "odds.col.distance": "ピップ",
        "odds.col.throws": "36 通り中",
        "odds.col.chance": "確率",
        "odds.enter.title": "バーからのエンター",
        "odds.enter.text": (
            "ダイスの目が示す相手のホームボードのポイントが空いていればエンターできます。1 個なら両"
            "方の目が"
            "塞がれていない限り入り、2 個とも入るのは両方の目が空いているときだけです（空いた目のゾ"
            "ロ目なら両方入ります）。"
        ),
        "odds.col.closed": "塞がれたポイント",
        "odds.col.one": "1 個が入る",
        "odds.col.two": "2 個とも入る",
        "odds.bear.title": "1 回のロールでベアオフ",
        "odds.bear.text": (
            "ホームボードの各ポイントにある駒の数：次のロールで全部ベアオフできる確率。"
        ),
        "odds.bear.point": "ポイント 1〜6 の駒の数（この順に）",
        "odds.doubles.title": "ゾロ目",
        "odds.doubles.text": (
            "公正な 2 個のダイスで、あなたと相手がそれぞれ N 回振るときのゾロ目の連続。"
            "boardgammon odds doubles コマンドと同じく正確に数えます。"
        ),
        "odds.rolls": "各自のロール数（N）",
        "odds.margin": "差（D）",
        "odds.games": "ゲーム数（G）",
        "odds.expected": "N 回で期待されるゾロ目の数",
        "odds.p_at_least_one_double": "ゾロ目が 1 回以上",
        "odds.p_run_of_2": "ゾロ目が 2 回連続",
        "odds.p_run_of_3": "ゾロ目が 3 回連続",
        "odds.p_opponent_more_by_margin": "相手のゾロ目があなたより D 回以上多い",
        "odds.p_you_more_by_margin": "あなたのゾロ目が相手より D 回以上多い",
        "odds.p_opponent_run_of_3_within_games": (
            "G ゲームのうち 1 ゲーム以上で相手がゾロ目を 3 回連続"
        ),
        "odds.kniffel.title": "ヤッツィー（Kniffel）",
        "odds.kniffel.text": (
            "5 個のダイスが 1〜3 回のロールですべて同じ目になる確率：最善の残し方、毎回 5 個とも振"
            "り直す、"
            "一番大きい組の目を残す（boardgammon odds kniffel）。"
        ),
        "odds.col.rolls": "ロール",
        "odds.col.optimal": "最善の残し方",
        "odds.col.always": "全部振り直し",
        "odds.col.fixed": "最大の組を残す",
        "site.record": "ダイス記録",
        "record.intro": (
            "このサーバーのすべてのオンライン対戦で公開された両者のロールを、boardgammon stats di"
            "ce-report コマンドと同じように数えて検定しています。公正なダイスなら 36 通りの順序付"
            "きの出目（1 個目、2 個目）はどれも 1/36、ゾロ目は 1/6 です。"
        ),
        "record.empty": "このサーバーではまだ公開されたロールがないため、数えるものがありません。",
        "record.range": {
            "other": (
                "{rolls} ロール（ダイス {dice} 個）、公開期間 {first} 〜 {last}（UTC）。"
                "このレポートは {made} に作成され、作り直すのは最大で 1 日 1 回です。"
            ),
        },
        "record.rough": (
            "ただし 1 マスあたりの期待値は {expected} で、カイ二乗近似に必要な 5 を下回るため、"
            "この p 値は目安にすぎません。"
        ),
        "record.rough.short": "目安：1 マスの期待値 {expected}（5 未満）",
        "record.download": "集計をダウンロード",
        "record.picture.cells": "{rolls} 回の出目：順序付きの各出目の回数",
        "record.picture.second_die": "2 個目のダイス",
        "record.picture.first_die": "1 個目のダイス",
        "record.picture.colour_bar": "n/36 との差 %（赤：多い／青：少ない）",
        "record.picture.faces": "ダイス {dice} 個：各目の割合",
        "record.picture.face": "目",
        "record.picture.percent": "全ダイスに占める %",
        "record.picture.share": "割合と 95% 区間",
        "record.picture.fair": "公正：1/6",
        "record.plot": (
            "左：順序付きの各出目の回数（公正な回数からのずれで色分け）。右：全ダイスに占める各目"
            "の割合と 95% 区間（基準は 1/6）。"
        ),
        "record.table.title": "36 通りの出目",
        "record.table.text": (
            "行：1 個目のダイス、列：2 個目のダイス。公正なダイスなら各 {expected} 回です。"
        ),
        "record.doubles.title": "ゾロ目",
        "record.doubles.text": (
            "ゾロ目 {doubles} 回 = {share}（公正なダイス：16.67%、95% 区間 {low}〜{high}、p = {"
            "p}：{verdict}）。"
        ),
        "record.faces.title": "各目",
        "record.chi2.title": "カイ二乗検定",
        "record.chi2.cells": "36 通りの出目全体",
        "record.chi2.faces": "6 つの目全体",
        "record.chi2.line": "{name}：カイ二乗 {statistic}、自由度 {df}、p = {p}：{verdict}。",
        "record.verdict.fair": "公正なダイスの範囲内",
        "record.verdict.unusual": (
            "公正なダイスとしては珍しい（ただし検定の約 20 回に 1 回は偶然この程度になる）"
        ),
        "record.verdict.unlikely": "公正なダイスではまず起こらない",
        "record.extremes.title": "最も偏った出目と目",
        "record.extremes.text": (
            "見てから最も極端な数字を選ぶと、実際より珍しく見えます。そこで、公正なダイスでどれか"
            "の出目（目）がそこまでずれる確率と、事前に決めた 1 つがずれる確率の両方を示します。"
        ),
        "record.max_cell": (
            "最も多い出目 {outcome}：{count} 回（平均より {excess}）。この規模の公正な集計で、ど"
            "れかの出目がここまで多くなるのは {p_any}、事前に決めた出目なら {p_named} です。"
        ),
        "record.max_face": (
            "1/6 から最も離れた目 {face}：{share}。公正な集計で、どれかの目がここまでずれるのは {"
            "p_any}、事前に決めた目なら {p_named} です。"
        ),
        "record.order.title": "順序：ゾロ目の後のゾロ目、連続",
        "record.after_double": {
            "other": (
                "ゾロ目の直後、同じ対戦の次のロールがゾロ目だったのは {rolls} 回中 {doubles} 回"
                "（{share}、公正：16.67%、p = {p}：{verdict}）。"
            ),
        },
        "record.longest_run": (
            "ゾロ目の最長連続は {length} 回でした。公正なダイスでこの規模の記録のどこかにそれ以上"
            "の連続が出る確率は {p} です。"
        ),
        "record.sources.title": "エントロピー元別",
        "record.sources.text": (
            "振る人の端末が独自のエントロピーを加えたロールと、サーバーだけで公開したロール（コン"
            "ピューターのロール）。"
        ),
        "record.col.source": "エントロピー元",
        "record.col.rolls": "ロール",
        "record.col.doubles": "ゾロ目",
        "record.col.p_cells": "p（36 通り）",
        "record.col.p_faces": "p（各目）",
        "record.col.face": "目",
        "record.col.count": "回数",
        "record.col.share": "割合（95% 区間）",
        "record.summary": "コマンド自身の要約（英語）",
        # The audit page's players and way back (issue 22).
        "audit.players": "{first} 対 {second}",
        "audit.computer": "コンピューター ({level})",
        "audit.back": "対戦に戻る",
        # Clock presets and the computer's levels by name (pages, issue 22).
        "preset.bullet": "バレット",
        "preset.blitz": "ブリッツ",
        "preset.rapid": "ラピッド",
        "unit.seconds": "{n} 秒",
        "unit.minutes": "{n} 分",
        "preset.standard": "スタンダード",
        "preset.slow": "スロー",
        "level.easy": "やさしい",
        "level.medium": "ふつう",
        "level.hard": "むずかしい",
        # dice v2 (issue #25): the filled-in program of every row
        "verify.row": "このロールのプログラム",
        "audit.values": "値と証明",
        "audit.values_failed": "値を取得できませんでした。上のリンクから JSON で開けます。",
        # 公開ログ（issue 25, dicelog）
        "log.title": "公開ログ",
        "log.intro": (
            "このサーバーのすべてのロールのコミット、公開、状態の変化は、追記専用の公開 Merkle "
            "木（RFC 9162）の葉にもなります。以下は、この対戦を含む、サーバーのログ鍵で署名された"
            "ツリーヘッドです。各ロールの葉とその包含証明は、上の表のそのロールの行の下にあります。"
            "boardgammon witness で誰でもログを監視できます。"
            "対局終了時に結果画面が示したツリーヘッドは、これより古く小さいものかもしれません。"
            "ログは追記されるだけなので、後のヘッドはすべて同じ葉を含み、"
            "ウィットネスは各ヘッドが前のヘッドを延長していることを確認します。"
        ),
        "log.tree_size": "木のサイズ",
        "log.root_hash": "ルートハッシュ",
        "log.timestamp": "署名時刻（UTC。括弧内は署名された 1970 年からのミリ秒）",
        "log.signature": "署名（Ed25519）",
        "log.public_key": "ログ鍵（/api/log/public-key にも掲載）",
        "log.entries": "ログ項目（番号：イベント）",
        "log.entry_n": "ログ項目 {index}",
        "log.proofs": "証明 {count} 件（JSON）",
        "log.event.committed": "コミット",
        "log.event.revealed": "公開",
        "log.event.played": "プレイ済み",
        "log.event.void": "無効",
        "log.check": "この記録が挙げる葉と証明を署名済みヘッドに照らして確認する：",
        "fair.log_key": "ダイスログのツリーヘッドに署名する公開ログ鍵（Ed25519）：",
        # Ratings, profiles and leaderboards (issue 23)
        "player.guest": "ゲストです。ゲストの対局はレーティング対象外です。",
        "player.ratings": "レーティング",
        "player.unrated": "まだレーティング対象の対局がありません（全員 1500 から始まります）。",
        "player.unrated.short": "対象外",
        "player.variant.standard": "バックギャモン",
        "player.variant.nackgammon": "ナックギャモン",
        "player.variant.hypergammon": "ハイパーギャモン",
        # Deleted accounts (issue #23): the name shown in their place.
        "player.deleted": "削除されたプレイヤー",
        "player.rating.line": (
            "レーティング {rating}（偏差 ±{deviation}）、レーティング対局 {matches} 回、経験値 "
            "{experience}。"
        ),
        "player.plot": "{variant} のレーティング推移（対局ごと）",
        "player.plot.range": "レーティング対局ごとの推移：{low}〜{high} の範囲。",
        "player.matches": "対局",
        "player.no_matches": "まだ対局がありません。",
        "player.col.date": "日付",
        "player.col.opponent": "相手",
        "player.col.length": "ポイント",
        "player.col.variant": "種類",
        "player.col.result": "結果",
        "player.col.rating": "レーティング増減",
        "player.col.luck": "運",
        "player.result.won": "勝ち",
        "player.result.lost": "負け",
        "player.result.aborted": "中止",
        "player.result.active": "対局中",
        "player.link.match": "対局",
        "player.link.audit": "ダイス監査",
        "player.link.analysis": "分析",
        "player.prev": "← 新しい対局",
        "player.next": "古い対局 →",
        "player.page": "{pages} ページ中 {page} ページ",
        "player.dice": "本人のダイス",
        "player.dice.none": "公開されたロールはまだありません。",
        "player.dice.intro": (
            "このプレイヤー自身の公開済みロール {rolls} "
            "回（相手のものは除く）を、ダイス記録のページと同じ方法で検定しました："
        ),
        "player.pr": "PR の推移",
        "player.pr.none": "分析済みの対局はまだありません。",
        "player.pr.single": "これまでに分析した 1 局の PR：{pr}（低いほど良い）。",
        "player.pr.range": (
            "分析済み対局 {count} 局の PR（古い順）：最良 {low}、最悪 {high}（低いほど良い）。"
        ),
        "leaderboard.title": "ランキング",
        "leaderboard.rule": (
            "この種類でレーティング対局を {min} 回以上終えた正規アカウント。ゲストは対象外です。"
        ),
        "leaderboard.how": "レーティングの仕組み",
        "leaderboard.empty": "まだ条件を満たすプレイヤーがいません。",
        "leaderboard.col.player": "プレイヤー",
        "leaderboard.col.rating": "レーティング",
        "leaderboard.col.matches": "レーティング対局数",
        "ratings.title": "レーティング",
        "ratings.intro": (
            "正規アカウントには種類ごと（バックギャモン、ナックギャモン、ハイパーギャモンは別々）"
            "のレーティングがあり、1500 "
            "から始まります。レーティング対局が終わると、終わり方（ベアオフ、ダブルのパス、投了、"
            "時間切れ）にかかわらず一度だけ変わります。ゲストとコンピューター相手の対局は対象外で"
            "、終わっていない対局は何も変えません。"
        ),
        "ratings.fibs": (
            "尺度は FIBS の式と同じです。相手より D 点高いプレイヤーが n "
            "ポイントマッチに勝つ確率は 1 / (1 + 10^(−D·√n / 2000)) です。"
        ),
        "ratings.glicko": (
            "レーティングは Glicko-2（Mark Glickman）で動きます。レーティングのほかに確かさを表す"
            "偏差を持つので、新しいプレイヤーは速く、落ち着いたプレイヤーはゆっくり動きます。各対"
            "局は長さに応じた重み（n ポイントで √n / 5）で数えるので、レーティング差は FIBS "
            "と同じ勝率を予測します。"
        ),
        "ratings.why": (
            "強さの分かっているプレイヤーをシミュレーションして選びました。FIBS "
            "と同じくらい正しく順位をつけ、結果をよりよく予測します。数値と式はソースの "
            "docs/ratings.md にあります。"
        ),
        # dice v2 in the match flow (issue #25, dicewire): the v2 audit page
        "log.event.requested": "要求済み",
        "log.event.anchor": "チェーンのアンカー受付",
        "log.anchor_seat": "席 {seat} のチェーンのアンカー",
        "log.anchor_player": "{player} のチェーンのアンカー",
        "log.anchor_proof": "証明（JSON）",
        "log.check_anchors": (
            "ログにあるこの対局のロールとチェーンのアンカーがすべてログのとおりに記録にあり、"
            "アンカーの後のロールがそのリンクを使ったことを確かめる"
            "（署名付きヘッドまでのログ全体を読みます）:"
        ),
        "col.kind": "種類",
        "col.roller_source": "振る側の乱数の出所",
        "col.roller_entropy": "振る側の乱数",
        "col.opponent_source": "相手のリンク",
        "col.opponent_entropy": "相手のリンク（16進）",
        "col.seat": "席",
        "col.state": "状態",
        "col.opponent_prev_link": "相手の直前のリンク（16進）",
        "col.opponent_link_steps": "リンクから直前のリンクまでの段数",
        "col.prev_hash": "前のエントリのハッシュ",
        "col.entry_hash": "エントリのハッシュ",
        "col.committed_at": "コミット時刻",
        "col.requested_at": "要求時刻",
        "col.opponent_at": "リンク受信時刻",
        "col.revealed_at": "公開時刻",
        "col.played_at": "プレイ時刻",
        "col.voided_at": "無効化時刻",
        "col.verdict_detail": "理由",
        "kind.opening": "オープニングロール",
        "kind.opening_dice": "オープニングロール（1個目は {first}、2個目は {second} のダイス）",
        "kind.normal": "通常のロール",
        "roller.client": "振る側の端末",
        "roller.server": "サーバー（コンピューターが振る）",
        "opponent.client": "相手の端末が公開",
        "opponent.absent": ("欠如：相手の端末のリンクなし（端末に問い合わせない通信対局の手番、"
                            "または時間内に応答しなかったライブのロール：オフライン、"
                            "またはプレイヤーのチェーンを持たない端末）"),
        "opponent.none": "なし：相手にチェーンがない（コンピューター、または時間内に未登録）",
        "verdict.opponent link mismatch": "相手のリンクがそのチェーンと一致しない",
        "verdict.void after reveal": "ダイスが判明した後に無効化された",
        "verdict.void after request": "リクエスト後に無効化され、同じゲームで振り直された",
        "verdict.log mismatch": "公開ログと一致しない",
        "verdict.chain skipped": "ログで受理済みのチェーンのリンクを使っていない",
        "verdict.anchor missing": "ログにあるチェーンのアンカーが記録にない",
        "verdict.absent too early": ("サーバーが記録した待ち時間が終わる前に、"
                                     "相手のリンクなしで公開された"),
        "verdict.left unresolved": "未解決のまま次のロールが振られた",
        "counts.title": "これらのロールが証明すること",
        "counts.live": (
            "両方の端末の乱数を含むロール {count} 回：どちらのプレイヤーも単独では、"
            "またサーバーがどちらか一方と組んでも、事前に知ることはできなかった。"
            "サーバーは相手のリンクを受け取った後、そのリンクありのロールとなしのロールの"
            "どちらかを選ぶことしかできなかった。"
        ),
        "counts.computer": (
            "人間の対戦相手の端末のリンクを含むコンピューターのロール {count} 回："
            "サーバー単独では事前に知ることはできなかった。そのリンクを受け取った後、"
            "そのリンクありのロールとなしのロールのどちらかを選ぶことしかできなかった。"
        ),
        "counts.opponent_absent": (
            "相手の端末のリンクがないロール {count} 回（端末に問い合わせない通信対局の手番、"
            "または時間内に応答しなかったライブのロール）："
            "サーバーと振る側が組めば事前に知り得た。"
        ),
        "counts.no_opponent_device": (
            "相手にチェーンがなかったロール {count} 回：サーバーと振る側が組めば事前に知り得た。"
            "チェーンがなかったことは、サーバーが受け付けたアンカーがすべて葉として載る公開ログで"
            "確かめられる（verify.py --log）。"
        ),
        "counts.server_only": "サーバーがすべての入力を引いたロール {count} 回。",
        "mode.live": (
            "ライブ対戦（公開ログのエントリー {index} に最初のロールとともに記録）："
            "相手のリンクがないロールは、その端末がサーバーの待ち時間内に応答しなかったことを示す。"
        ),
        "mode.correspondence": (
            "通信対局（公開ログのエントリー {index} に最初のロールとともに記録）："
            "手番ごとに相手の端末に問い合わせないため、ロールは相手のリンクなしで行われる。"
        ),
        "mode.computer": (
            "コンピューターとの対戦（公開ログのエントリー {index} に最初のロールとともに記録）："
            "コンピューターのロールは人間の端末のリンクを使う（リンクがないロールは、"
            "その端末がサーバーの待ち時間内に応答しなかったことを示す。オフラインだったか、"
            "人間のチェーンを持つ端末とは別の端末でだけ対局が開かれていた）。人間自身のロールには"
            "リンクを加える相手の端末がないため、サーバーと人間が組めば事前に知り得た。"
        ),
        "mode.wait": (
            "同じエントリーに記録されているとおり、サーバーは相手のリンクを {seconds} 秒待ってから"
            "リンクなしでロールします。リンクなしのロールがどれもリクエストから少なくともその時間"
            "待ったことは、検証プログラムが確かめます。"
        ),
        "mode.none": (
            "公開ログにはこの対戦の形式が記録されていない（2026年12月5日より前の対戦、"
            "またはまだロールのない対戦）。"
        ),
        # ダイス v2 の監査ページ (issue #25, dice)：v1 記録の説明、v2 のプログラム
        "audit.intro_v1": (
            "この対戦は3つの入力より前のプロトコル第1版で振られました。各ロールはサーバーのコミット"
            "済みシードと振る人のエントロピーだけを混ぜ、その変化のすべてが公開ログにあるわけでは"
            "ありません。記録は下のとおり引き続き検証できます。"
        ),
        "verify.roll_v2": (
            "この Python プログラムは標準ライブラリだけを使います。対戦で最初に公開されたロールの値"
            "が入っており、コミットメント、相手のリンク、ダイス、すべての項目と時刻にわたるエントリー"
            "ハッシュ、公開ログの各エントリーの包含証明を確認し、不一致があればエラーで止まります。"
            "ほかの公開済みロールにも、値を入れた同じプログラムが各行の下にあります。"
        ),
    },
}


# The reading pages in the order of the site's footer: (key, address); "site.{key}" names each.
SITE_PAGES = (
    ("fair", "/fair"),
    ("rules", "/rules"),
    ("skill", "/skill-levels"),
    ("odds", "/odds"),
    ("record", "/dice-record"),
    ("glossary", "/glossary"),
)

LANGUAGE_COOKIE = "bg_lang"
"""The cookie in which the client (``web/i18n.js``) keeps its language for the server's
pages: a page opened from the app without ``?lang=`` is in the app's language."""


def page_context(language: str, page: str | None = None) -> dict[str, object]:
    """What ``base.html`` needs for its header and footer: the language, its translator, the
    languages, the site's pages and which of them (``page``, a key of :data:`SITE_PAGES`) this
    is, and ``num``, the language's way of writing numbers
    (:class:`boardgammon.server.numerals.Numerals`)."""
    return {
        "lang": language,
        "languages": LANGUAGES,
        "t": translator(language),
        "num": NUMERALS[language],
        "site_pages": SITE_PAGES,
        "page": page,
        "player_name": lambda name: shown_name(name, language),
    }


def shown_name(name: str, language: str) -> str:
    """A player's name as a page shows it: a deleted account's placeholder
    (:data:`boardgammon.server.tables.DELETED_NAME`) and the computer's (``Computer (easy)``,
    as the API names it) in ``language``, any other name as is (no username has a space)."""
    t = translator(language)
    if name == DELETED_NAME:
        return t("player.deleted")
    bot = re.fullmatch(r"Computer \((easy|medium|hard)\)", name)
    return t("audit.computer", level=t(f"level.{bot[1]}")) if bot else name


def request_language(request: Request, requested: str | None) -> str:
    """The language of a page: ``requested`` (``?lang=``) if supported, else the app's
    (:data:`LANGUAGE_COOKIE`), else as :func:`choose_language` picks from ``Accept-Language``."""
    if requested not in LANGUAGES:
        requested = request.cookies.get(LANGUAGE_COOKIE)
    return choose_language(requested, request.headers.get("accept-language"))


def choose_language(requested: str | None, accept_language: str | None) -> str:
    """``requested`` if supported, else the first supported language in ``Accept-Language``
    (quality values are ignored: browsers list languages in order), else English."""
    if requested in LANGUAGES:
        return requested
    for part in (accept_language or "").split(","):
        primary = part.split(";")[0].strip().split("-")[0].lower()
        if primary in LANGUAGES:
            return primary
    return DEFAULT_LANGUAGE


def plural_category(language: str, count: int) -> str:
    """The plural form a count takes (CLDR's categories): ``one`` for 1 in English and German,
    ``other`` for every other count, and for every count in Japanese, which has no plural."""
    return "one" if count == 1 and language in ("en", "de") else "other"


def translator(language: str) -> Callable[..., str]:
    """``t(key, plural=None, **fields)``: the text for ``key`` in ``language`` (English if
    untranslated) with ``fields`` filled in. A text that depends on a count is a dict of plural
    forms (``{"one": …, "other": …}``), chosen by the count ``plural``
    (:func:`plural_category`)."""
    table = MESSAGES.get(language, MESSAGES[DEFAULT_LANGUAGE])

    def t(key: str, plural: int | None = None, **fields: object) -> str:
        text = table.get(key) or MESSAGES[DEFAULT_LANGUAGE][key]
        if isinstance(text, dict):
            if plural is None:
                raise TypeError(f"{key} has plural forms: give its count as plural=")
            text = text.get(plural_category(language, plural), text["other"])
        return text.format(**fields) if fields else text

    return t
