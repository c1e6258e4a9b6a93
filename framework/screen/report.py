"""The game report in the game screen: ``plyground analyse``'s report (:mod:`plyground.play.report`) of the game on the
board -- a recorded game reviewed, or a game just finished -- run in the background, then shown: each side's
accuracy and its ?!/?/?? counts, the marks and the engine's best move in the move list, and the evaluation graph
(a click on a point shows that ply).

:class:`GameReporting` is a part of :class:`~.game.GameScreenModel` (its base class), so the window and the web
page share it: the report is computed once here, by the game's default judge as ``plyground analyse`` picks it
(:meth:`plyground.registry.Registry.default_judge`) with a short budget a position, and both front ends draw what
:meth:`report_view` and :meth:`draw_graph` give.  Nothing from the page names the judge: it is chosen here.
"""
from __future__ import annotations

import threading

from plyground.boardview import theme
from plyground.boardview.canvas import Canvas
from plyground.boardview.geometry import Rect
from plyground.options import Spec
from plyground.play.analyse_command import judge_name
from plyground.play.report import JUDGEMENTS, GameReport, analyse
from plyground.play.review import GameReview
from plyground.protocols import Budget, GameRecord
from plyground.registry import get_registry

from .link import compiling_told

#: Seconds of search a position: a report of a 60-ply game in about ten seconds (``plyground analyse`` gives 0.1).
REPORT_SECONDS = 0.05
#: The graph's colours: the evaluation side's share, the other side's, the line, and each judgement's point.
GRAPH_LIGHT, GRAPH_DARK, GRAPH_LINE = (207, 216, 220), (69, 90, 100), (20, 20, 20)
JUDGEMENT_COLOURS = {"inaccuracy": (249, 168, 37), "mistake": (239, 108, 0), "blunder": (198, 40, 40)}


class _Stopped(Exception):
    """The screen was left while its report was being made."""


class GameReporting:
    """The game screen's report: made in a thread (:meth:`start_report`), its messages back through the link."""

    #: The judge's spec (None: the game's default judge, as ``plyground analyse`` picks it) and the budget a
    #: position; tests make them tiny (``alphabeta:depth=1``).
    REPORT_JUDGE: str | None = None
    REPORT_BUDGET = Budget(seconds=REPORT_SECONDS)

    report: GameReport | None = None
    report_progress: tuple[int, int] | None = None     # (positions searched, positions) while a report is made

    def report_record(self) -> GameRecord | None:
        """The game a report would judge: the recorded game reviewed, or the game just finished (None: neither,
        or it has no moves)."""
        record = self.review.record if self.reviewing else self.record
        return record if record is not None and record.moves else None

    def can_report(self) -> bool:
        record = self.report_record()
        return record is not None and self.report_progress is None and \
            not (self.report is not None and self.report.record is record)

    def start_report(self) -> None:
        """Judge every move of the game on the board, off the front end's thread (R, or the Report button)."""
        if not self.can_report():
            return
        record = self.report_record()
        self.report, self.report_progress = None, (0, len(record.moves) + 1)
        self.set_message("Making the game report: every move judged\u2026", "wait")
        threading.Thread(target=self._make_report, args=(record,), name="plyground-report", daemon=True).start()

    def _make_report(self, record: GameRecord) -> None:

        engine = None
        try:
            registry = get_registry()
            spec = Spec.parse(self.REPORT_JUDGE or registry.default_judge(self.game)[0])
            engine = registry.make_player(spec, self.game)

            def progress(done: int, total: int, _seconds: float) -> None:
                if self.link.abandoned.is_set():
                    raise _Stopped
                self.link.post("report_progress", done, total)

            with compiling_told(self.link):
                engine.warm_up()
                report = analyse(GameReview(self.game, record), engine, self.REPORT_BUDGET, judge_name(spec, engine),
                                 progress)
            self.link.post("report", record, report)
        except _Stopped:
            pass
        except Exception as exc:  # noqa: BLE001 - shown in the panel rather than lost in a thread
            self.link.post("report_failed", str(exc))
        finally:
            if engine is not None:
                engine.close()

    # ------------------------------------------------------------ its messages
    def _on_report_progress(self, done: int, total: int) -> None:
        if self.report_progress is not None:
            self.report_progress = (done, total)

    def _on_report(self, record: GameRecord, report: GameReport) -> None:
        self.report_progress = None
        if record is not self.report_record():       # another game is on the board now
            return
        self.report = report
        self.set_message("Report ready: click the graph to go to a ply.", "good")

    def _on_report_failed(self, text: str) -> None:
        self.report_progress = None
        self.set_message(f"No game report: {text}", "error")

    # ------------------------------------------------------------ what is shown
    def report_move_text(self, ply: int, text: str) -> str:
        """Move ``ply`` (0: the first) as the move list writes it with the report: its mark, and for a judged
        move the engine's best move in brackets (``20-16?? (22-17)``): not read as the next move."""
        if self.report is None or ply >= len(self.report.moves):
            return text
        verdict = self.report.moves[ply]
        return f"{text}{verdict.mark} ({verdict.best})" if verdict.judgement else text

    def report_view(self) -> dict | None:
        """The report's panel as data (both front ends lay it out): a title, a line a side, the curve (the
        evaluation side's expected score, 0..1, after each ply) and the judged plies; None when there is none."""
        if self.report_progress is not None:
            done, total = self.report_progress
            return {"title": f"Report: judging position {done} of {total}\u2026", "lines": [], "curve": [],
                    "judged": {}}
        report = self.report
        if report is None or report.record is not self.report_record():
            return None
        lines = []
        for side in (0, 1):
            accuracy = report.accuracy(side)
            counts = ", ".join(f"{report.count(side, name)} {mark}" for name, _, mark, _ in
                               reversed(JUDGEMENTS))
            words = f"{accuracy:.1f}%" if accuracy is not None else "-"
            lines.append(f"{self.game.side_names[side]}: accuracy {words}; {counts}")
        return {"title": f"Report by {report.engine}", "lines": lines,
                "curve": [round(v, 4) for v in report.curve()],
                "judged": {m.ply + 1: m.judgement for m in report.moves if m.judgement}}

    def graph_ply(self, x: float, rect: Rect) -> int:
        """The ply of the graph's point nearest ``x`` in ``rect`` (the graph's box)."""
        plies = len(self.report.curve()) - 1 if self.report is not None else 0
        if plies <= 0:
            return 0
        return max(0, min(plies, round((x - rect.left) / max(1, rect.width) * plies)))

    def draw_graph(self, canvas: Canvas, rect: Rect) -> None:
        """The evaluation graph in ``rect``: the evaluation side's expected score after each ply (its share light,
        the other's dark), judged moves as points, the ply shown as a line; on the window's Canvas or the page's SVG."""
        curve = self.report.curve() if self.report is not None else []
        canvas.rect(GRAPH_DARK, rect)
        if len(curve) < 2:
            return
        step = rect.width / (len(curve) - 1)
        points = [(rect.left + i * step, rect.bottom - v * rect.height) for i, v in enumerate(curve)]
        canvas.polygon(GRAPH_LIGHT, [(rect.left, rect.bottom), *points, (rect.right, rect.bottom)])
        canvas.line(theme.TEXT_DIM, (rect.left, rect.centery), (rect.right, rect.centery), 1)
        for start, end in zip(points, points[1:]):
            canvas.line(GRAPH_LINE, start, end, 2)
        shown = self.review.ply if self.review is not None else None
        if shown is not None:
            canvas.line(theme.ACCENT, (points[shown][0], rect.top), (points[shown][0], rect.bottom), 2)
        for ply, judgement in self.report_view()["judged"].items():
            canvas.circle(JUDGEMENT_COLOURS[judgement], points[ply], 4)
        canvas.rect(theme.PANEL_EDGE, rect, 1)
