"""`--strategy tpe`: Optuna's Tree-structured Parzen Estimator over the same space as random search,
through Optuna's ask/tell interface (the field's standard black-box tuner; `pip install
'fa5090-search[tpe]'`). Its objective is the candidate's rate in its own paired measurement; a
configuration the keep gate refuses (wrong, crashed, refused) is told as failed, so TPE learns
to avoid it. Invalid combinations are told as failed before anything is built and do not count.

A point is drawn constructively (SearchOptions.tpe_draw, the default): each dimension is offered only the values the
knob table's rules allow beside those drawn before it, and a dimension offered a subset is its own parameter (Optuna's
categorical distributions are fixed per name), so a draw takes a few asks. Runs recorded before drew uniformly: every
dimension over all its values, each invalid point told failed (thousands of asks a draw); they replay that way."""
from __future__ import annotations

import copy

from .base import Constructive, Move, Sampler, State, Trial, knobs_of, launchable, space


class TpeMissing(RuntimeError):
    pass


def _storage_without_failures(optuna):
    """Optuna's in-memory storage, except that the trials told FAIL are left out of the lists it hands back.

    A draw asks until it finds a valid, unmeasured configuration: under 1% of the space's points are valid
    from the mma seed, so a study holds thousands of FAIL trials for a dozen COMPLETE ones, and every
    suggest has Optuna filter the whole list for the COMPLETE trials TPE reads (most of the resumed TPE test's time went there, under cProfile; not recorded). TPE reads only COMPLETE and PRUNED trials (RUNNING ones
    with constant_liar, which is off) and numbers trials from the storage's own list, so leaving the
    failures out of the lists changes no draw: the recorded TPE runs replay as they were drawn
    (tests/test_strategies.py::test_tpe_replayed). A caller that asks for FAIL trials by state still gets
    them."""
    from optuna.storages import InMemoryStorage
    from optuna.trial import TrialState

    class WithoutFailures(InMemoryStorage):
        def __init__(self) -> None:
            super().__init__()
            self._shown: dict[int, dict[int, None]] = {}  # study id -> numbers of its trials not told FAIL

        def create_new_trial(self, study_id, template_trial=None):
            trial_id = super().create_new_trial(study_id, template_trial)
            self._shown.setdefault(study_id, {})[self.get_trial_number_from_id(trial_id)] = None
            return trial_id

        def set_trial_state_values(self, trial_id, state, values=None):
            done = super().set_trial_state_values(trial_id, state, values)
            if state == TrialState.FAIL:
                study_id, number = self._trial_id_to_study_id_and_number[trial_id]
                self._shown.get(study_id, {}).pop(number, None)
            return done

        def get_all_trials(self, study_id, deepcopy=True, states=None):
            if states == (TrialState.WAITING,) or (states is not None and TrialState.FAIL in states):
                return super().get_all_trials(study_id, deepcopy, states)
            with self._lock:
                self._check_study_id(study_id)
                every = self._studies[study_id].trials
                trials = [every[n] for n in self._shown.get(study_id, {})]
                if states is not None:
                    trials = [t for t in trials if t.state in states]
                return copy.deepcopy(trials) if deepcopy else trials

    return WithoutFailures()


def _tell_failed(optuna, study, trial) -> None:
    """`study.tell(trial, state=FAIL)` without the deep copy of the trial that tell returns. A draw tells every invalid
    configuration it asked FAIL, tens of thousands of times in a replay of a uniform draw's run, and under cProfile
    that copy was 22% of such a replay's time; without it the replay took 78.6 s, not 100.9
    (results/2026-12-05_cpu_tpe_replay). Optuna's own tell is that function and the copy; where its private module
    differs, the public tell."""
    try:
        from optuna.study._tell import _tell_with_warning
    except ImportError:
        study.tell(trial, state=optuna.trial.TrialState.FAIL)
        return
    _tell_with_warning(study=study, trial=trial, state=optuna.trial.TrialState.FAIL)


def _search_space_without_copy(optuna, sampler) -> None:
    """TPE's intersection search space of the study's trials, as Optuna computes it, without the deep copy of the result
    that its `calculate` returns at every ask: the distributions are categorical, never written to, and TPE builds its
    own dict from them. Under cProfile that copy was 41.5 s of a 207.7 s replay of a uniform draw's run, one an ask
    (results/2026-12-06_cpu_ci_time/tpe_replay_profile.txt). Where Optuna's private function or attribute differs, its own."""
    try:
        from optuna.search_space.intersection import _calculate
    except ImportError:
        return
    space = getattr(sampler, "_search_space", None)
    if not isinstance(space, optuna.search_space.IntersectionSearchSpace) or not hasattr(space, "_include_pruned"):
        return

    def calculate(study, use_cache: bool = False) -> dict:
        space._search_space, space._cached_trial_number = _calculate(
            study._get_trials(deepcopy=False, use_cache=use_cache), space._include_pruned, space._search_space,
            space._cached_trial_number)
        return dict(sorted((space._search_space or {}).items(), key=lambda x: x[0]))

    space.calculate = calculate


def _suggest(trial, dim: str, ok: list, every: list):
    """One of `ok` (the values the rules leave `dim`, of `every`) through Optuna: a dimension offered all its values
    is the parameter `dim`, a subset its own parameter `dim[v1|v2|...]`; values by their text (a tile is a pair)."""
    text = [f"{v[0]}x{v[1]}" if isinstance(v, tuple) else str(v) for v in ok]
    name = dim if len(ok) == len(every) else f"{dim}[{'|'.join(text)}]"
    return ok[text.index(trial.suggest_categorical(name, text))]


class TpeSearch(Sampler):
    name = "tpe"
    word = "TPE draw"

    def __init__(self, seed: int = 0, draw: str = "constructive") -> None:
        if draw not in ("constructive", "uniform"):
            raise ValueError(f"unknown TPE draw '{draw}'; known: constructive, uniform")
        self.draw = draw
        try:
            import optuna
        except ImportError as e:
            raise TpeMissing("--strategy tpe needs Optuna: pip install 'fa5090-search[tpe]' (or pip install optuna)") from e
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.optuna = optuna
        sampler = optuna.samplers.TPESampler(seed=seed)
        _search_space_without_copy(optuna, sampler)
        self.study = optuna.create_study(direction="maximize", sampler=sampler, storage=_storage_without_failures(optuna))
        self._pending: dict[str, object] = {}  # knob key -> optuna trial awaiting its result
        self._next: Move | None = None

    def _draw(self, state: State) -> Move | None:
        if self._next is not None and self._next.knobs.key() not in state.measured_keys():
            return self._next
        dims = space(state.levers, state.seed or state.best, state.causal)
        seen = state.measured_keys() | {state.best.key()}
        # as many tries as random search's (base.sample_valid): under 1% of the space's points are valid
        # from the mma seed (results/2026-11-30_cpu_build_checks/tpe_draw_asks.txt), the resume test's
        # first TPE draw needed more than 500 asks, and a draw has to be found within one call, or a
        # resumed run, which asks once per finished experiment, would not draw again what the run drew
        # (the loop itself may ask several times). Raising the cap keeps the sequence of asks, so
        # recorded runs draw what they drew.
        build = Constructive(dims) if self.draw == "constructive" else None
        for _ in range(10_000):
            t = self.study.ask()
            if build is None:
                choice = {d: vals[t.suggest_int(d, 0, len(vals) - 1)] if d == "tile" else
                          t.suggest_categorical(d, vals) for d, vals in dims.items()}
            else:
                choice = build.draw(lambda d, ok: _suggest(t, d, ok, dims[d]))
                if choice is None:  # a dimension left no value the rules allow
                    _tell_failed(self.optuna, self.study, t)
                    continue
            try:
                k = knobs_of(choice)
            except Exception:  # noqa: BLE001 - an invalid combination: TPE learns to avoid it
                _tell_failed(self.optuna, self.study, t)
                continue
            if k.key() in seen or not launchable(k, state.limits, state.head_dim):
                _tell_failed(self.optuna, self.study, t)
                continue
            self._pending[k.key()] = t
            self._next = Move(knobs=k, kind="sample")
            return self._next
        self._next = None
        return None

    def tell(self, trial: Trial) -> None:
        t = self._pending.pop(trial.move.knobs.key(), None)
        self._next = None
        if t is None:
            return
        if trial.tflops is not None and trial.outcome in ("KEPT", "SLOWER", "NULL"):
            self.study.tell(t, trial.tflops)
        else:
            _tell_failed(self.optuna, self.study, t)
