"""Page texts in English, German and Japanese, and the choice of language for a request.

A page looks its strings up in :data:`MESSAGES` through :func:`translator`; a missing key in a
translation falls back to English. ``?lang=de`` wins over the ``Accept-Language`` header.
"""

from __future__ import annotations

from collections.abc import Callable

LANGUAGES = {"en": "English", "de": "Deutsch", "ja": "日本語"}
DEFAULT_LANGUAGE = "en"

MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "audit.title": "Dice record of match {match_id}",
        "audit.intro": (
            "Every roll of this match, both sides, in the order it was committed. Each roll was "
            "fixed by a secret server seed whose SHA-256 (the commitment) was published before "
            "the roll, then mixed with entropy from the roller's device. The verdicts below are "
            "recomputed by the server on every load of this page."
        ),
        "audit.verified": "All revealed rolls verify and the hash chain is intact.",
        "audit.failed": "Verification FAILED at roll {roll_id}: {reason}.",
        "audit.chain_head": "Chain head (published when the match ends)",
        "audit.not_found": "There is no dice record for match {match_id}.",
        "audit.json": "This record as JSON",
        "col.seq": "#",
        "col.roll_id": "Roll ID",
        "col.seat": "Seat",
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
        "verify.source": "Source of verify.py",
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
        "fair.box": "Match ID",
        "fair.submit": "Verify rolls",
        "fair.malformed": (
            "{match} is not a match ID. A match ID starts with mat_ followed by letters and "
            "digits, e.g. mat_3q7kzx2bq4…; the result screen and the audit page show it."
        ),
        "fair.unknown": "There is no dice record for match {match} on this server.",
        "audit.about": "How provably fair dice work",
    },
    "de": {
        "audit.title": "Würfelprotokoll der Partie {match_id}",
        "audit.intro": (
            "Jeder Wurf dieser Partie, beider Seiten, in der Reihenfolge seiner Festlegung. Jeder "
            "Wurf war durch einen geheimen Server-Seed festgelegt, dessen SHA-256 (die "
            "Festlegung) vor dem Wurf veröffentlicht wurde, und wurde dann mit Zufall vom Gerät "
            "des Würfelnden gemischt. Die Urteile unten berechnet der Server bei jedem Aufruf "
            "dieser Seite neu."
        ),
        "audit.verified": "Alle aufgedeckten Würfe sind bestätigt, die Hash-Kette ist intakt.",
        "audit.failed": "Prüfung FEHLGESCHLAGEN bei Wurf {roll_id}: {reason}.",
        "audit.chain_head": "Kettenkopf (wird am Ende der Partie veröffentlicht)",
        "audit.not_found": "Für die Partie {match_id} gibt es kein Würfelprotokoll.",
        "audit.json": "Dieses Protokoll als JSON",
        "col.roll_id": "Wurf-ID",
        "col.seat": "Platz",
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
            "aufgedeckten Wurf der Partie ausgefüllt, prüft Festlegung und Würfel und bricht bei "
            "jeder Abweichung mit einem Fehler ab."
        ),
        "verify.no_roll": "Das Programm erscheint hier, sobald der erste Wurf aufgedeckt ist.",
        "verify.match": (
            "Um die ganze Partie samt Kette zu prüfen, laden Sie den Prüfer herunter (eine "
            "Datei, nur Standardbibliothek) und führen ihn mit dem JSON dieses Protokolls aus:"
        ),
        "verify.source": "Quelltext von verify.py",
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
        "fair.box": "Partie-ID",
        "fair.submit": "Würfe prüfen",
        "fair.malformed": (
            "{match} ist keine Partie-ID. Eine Partie-ID beginnt mit mat_, gefolgt von "
            "Buchstaben und Ziffern, z. B. mat_3q7kzx2bq4…; Ergebnisanzeige und Prüfseite zeigen "
            "sie."
        ),
        "fair.unknown": "Für die Partie {match} gibt es auf diesem Server kein Würfelprotokoll.",
        "audit.about": "Wie nachweislich faire Würfel funktionieren",
    },
    "ja": {
        "audit.title": "対戦 {match_id} のダイス記録",
        "audit.intro": (
            "この対戦の両者のすべてのロールを、コミットされた順に示します。各ロールは秘密のサーバー"
            "シードで事前に固定され、その SHA-256（コミットメント）がロール前に公開され、振る人の"
            "端末のエントロピーと混ぜ合わされました。下の判定は、このページを開くたびにサーバーが"
            "計算し直しています。"
        ),
        "audit.verified": "公開済みのロールはすべて検証され、ハッシュチェーンは無傷です。",
        "audit.failed": "ロール {roll_id} で検証に失敗しました：{reason}。",
        "audit.chain_head": "チェーンヘッド（対戦終了時に公開）",
        "audit.not_found": "対戦 {match_id} のダイス記録はありません。",
        "audit.json": "この記録の JSON",
        "col.roll_id": "ロール ID",
        "col.seat": "席",
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
        "verify.source": "verify.py のソース",
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
        "fair.box": "対戦 ID",
        "fair.submit": "ロールを検証",
        "fair.malformed": (
            "{match} は対戦 ID ではありません。対戦 ID は mat_ の後に英数字が続きます"
            "（例：mat_3q7kzx2bq4…）。結果画面と監査ページに表示されます。"
        ),
        "fair.unknown": "このサーバーには対戦 {match} のダイス記録はありません。",
        "audit.about": "検証可能な公正ダイスの仕組み",
    },
}


# The reading pages in the order of the site's footer: (key, address); "site.{key}" names each.
SITE_PAGES = (
    ("fair", "/fair"),
    ("rules", "/rules"),
    ("skill", "/skill-levels"),
    ("glossary", "/glossary"),
)


def page_context(language: str, page: str | None = None) -> dict[str, object]:
    """What ``base.html`` needs for its header and footer: the language, its translator, the
    languages, the site's pages and which of them (``page``, a key of :data:`SITE_PAGES`) this
    is."""
    return {
        "lang": language,
        "languages": LANGUAGES,
        "t": translator(language),
        "site_pages": SITE_PAGES,
        "page": page,
    }


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


def translator(language: str) -> Callable[..., str]:
    """``t(key, **fields)``: the text for ``key`` in ``language`` (English if untranslated)."""
    table = MESSAGES.get(language, MESSAGES[DEFAULT_LANGUAGE])

    def t(key: str, **fields: object) -> str:
        text = table.get(key) or MESSAGES[DEFAULT_LANGUAGE][key]
        return text.format(**fields) if fields else text

    return t
