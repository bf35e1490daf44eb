"""The summary: failed attempts by domain and phase (down / recovering / up), the verdicts, the
JSON report, and the lines printed at the end."""
import collections
import json
import math

from .config import DOMAINS, SHORT, say


class Report:
    """Part of `Chaos` (run.py): reads what the run recorded (self.rec, self.windows, self.kills,
    self.audit, self.failures, self.unexpected_deaths, self.rss) and the stack's own account."""

    def classify_errors(self):
        """Every failed attempt by domain: while that domain was down (inside a kill → SERVING window),
        while it was recovering (within GRACE after), or while it was up; an error of a domain that
        was up while another was down is an other-domain error."""
        windows = [(w["domain"], w["t_kill"], w["t_healthy"] if w["t_healthy"] is not None else float("inf"))
                   for w in self.windows]
        table = collections.defaultdict(collections.Counter)
        other = []
        for e in self.rec.errors:
            domain = e["domain"]
            full = {v: k for k, v in SHORT.items()}[domain]
            own = [w for w in windows if w[0] == full and w[1] <= e["t1"] and e["t0"] <= w[2]]
            recovering = [w for w in windows if w[0] == full and w[2] < e["t0"] <= w[2] + self.config.grace]
            others = [w for w in windows if w[0] != full and w[1] <= e["t1"] and e["t0"] <= w[2]]
            if own:
                table[domain]["down"] += 1
            elif recovering:
                table[domain]["recovering"] += 1
            else:
                table[domain]["up"] += 1
                if others:
                    other.append(dict(e, while_down=sorted({SHORT[w[0]] for w in others})))
        return table, other

    def summarize(self):
        cfg = self.config
        table, other = self.classify_errors()
        died_in_log, strange = self.stack.deaths()
        kills_by_domain = collections.Counter(w["domain"] for w in self.kills)
        kills_by_target = collections.Counter(w.get("replica", w["domain"]) for w in self.kills)
        for target in [t.name for t in self.stack.targets] or DOMAINS:
            if died_in_log[target] != kills_by_target[target]:
                strange.append(f"{target}: the supervisor reports {died_in_log[target]} SIGKILL deaths, the killer "
                               f"made {kills_by_target[target]}")
        writes = self.rec.writes
        statuses = collections.Counter(w["status"] for w in writes)
        problems = self.audit.get("problems", {})
        lost = len(problems.get("lost", []))
        duplicated = len(problems.get("duplicated", []))
        verdicts = []
        if lost:
            verdicts.append(f"lost {lost}")
        if duplicated:
            verdicts.append(f"duplicated {duplicated}")
        for category in ("partly applied", "applied although refused or never sent", "inconsistent", "misdelivered",
                         "money not conserved", "account below its limit", "balance not explained",
                         "unexpected account"):
            if problems.get(category):
                verdicts.append(f"{category}: {len(problems[category])}")
        if self.audit.get("incomplete"):
            verdicts.append(f"audit incomplete: {self.audit['incomplete']}")
        if other:
            verdicts.append(f"other-domain errors while one was down: {len(other)}")
        if self.unexpected_deaths:
            verdicts.append(f"unexpected deaths: {self.unexpected_deaths}")
        if strange:
            verdicts.append(f"supervisor log: {strange}")
        verdicts += self.failures
        downs = [w["t_healthy"] - w["t_kill"] for w in self.windows if w["t_healthy"] is not None]
        latency = {}
        for intent in sorted(self.rec.latency):
            values = sorted(self.rec.latency[intent])
            handle = sorted(self.rec.handle_latency[intent])
            latency[intent] = {"n": len(values), "p50_ms": ms(pct(values, 50)), "p99_ms": ms(pct(values, 99)),
                               "max_ms": ms(values[-1]), "handle_p50_ms": ms(pct(handle, 50)),
                               "handle_p99_ms": ms(pct(handle, 99))}
        calls = sum(self.rec.attempts.values())
        summary = {
            "started_at": self.started_at, "run": self.run, "seed": cfg.seed,
            "config": {k: v for k, v in cfg.as_dict().items() if k not in ("bin",)} | {"bin": cfg.bin},
            "stack": self.stack.kind, "endpoints": self.stack.endpoints, "data": self.stack.data,
            **({"stack_detail": self.stack.report()} if self.stack.report() else {}),
            "load_seconds": round(self.load_ended - self.load_began, 1) if hasattr(self, "load_ended") else None,
            "rpc_attempts": calls,
            "rpc_attempts_by_domain": {d: {"ok": self.rec.attempts[(d, "ok")], "err": self.rec.attempts[(d, "err")]}
                                       for d in sorted({d for d, _ in self.rec.attempts})},
            "rounds": {f"{i} {o}": n for (i, o), n in sorted(self.rec.rounds.items())},
            "writes": dict(statuses), "acknowledged_writes": statuses["acked"],
            "replayed_acknowledgements": self.rec.replayed,
            "replayed_after_the_gateway_placed_the_call_again": self.rec.replayed_by_gateway,
            "attempts_answered_across_a_kill_of_their_domain": {
                f"{d} {m}": n for (d, m), n in sorted(self.rec.answered_across_kill.items())},
            "lost": lost, "duplicated": duplicated,
            "errors_by_domain": {d: dict(c) for d, c in sorted(table.items())},
            "error_codes": {f"{d} {c}": n for (d, c), n in sorted(self.rec.error_codes.items())},
            "calls_out_of_budget": {f"{d} {m}": n for (d, m), n in sorted(self.rec.calls_failed.items())},
            "other_domain_errors_while_down": other,
            "non_transport_errors": self.rec.other_failures,
            "kills": self.kills, "kills_by_domain": dict(kills_by_domain),
            **({"kills_by_replica": dict(sorted(kills_by_target.items()))} if self.stack.kind == "postgres" else {}),
            "kills_with_a_handle_in_flight": sum(1 for w in self.kills if w["handles_in_flight"]),
            "down_seconds": {"n": len(downs), "p50": round(pct(sorted(downs), 50), 3) if downs else None,
                             "max": round(max(downs), 3) if downs else None},
            "latency": latency, "rss_kib": self.rss, "unexpected_deaths": self.unexpected_deaths,
            "supervisor_deaths": dict(died_in_log), "supervisor_strange": strange,
            "skipped": dict(self.rec.skipped), "audit": self.audit, "failures": verdicts,
            "passed": not verdicts,
            "writes_detail": writes,
            "errors_detail": self.rec.errors[:5000],
        }
        return summary

    def print_summary(self, s):
        lines = []
        add = lines.append
        add("")
        add(f"chaos: {s['load_seconds']} s of load, {self.config.clients} clients, {len(self.users)} users, "
            f"seed {s['seed']}")
        w = s["writes"]
        add(f"  calls made (RPC attempts)        {s['rpc_attempts']}")
        add(f"  intents attempted                {sum(n for k, n in s['rounds'].items() if not k.startswith('follow'))}")
        again = s["replayed_after_the_gateway_placed_the_call_again"]
        add(f"  acknowledged writes              {s['acknowledged_writes']}  (of them {s['replayed_acknowledgements']} "
            f"answered by a replay after a retry" + (f"; {again} of these on the client's first attempt: the gateway "
                                                    f"placed the Handle again on the other replica" if again else "")
            + ")")
        add(f"  writes refused by the domain     {w.get('refused', 0) + w.get('not_sent', 0)}  (business answers: "
            f"no driver, insufficient funds, …; nothing may be applied)")
        add(f"  writes never acknowledged        {w.get('unacked', 0)}  (retry budget spent; at most once)")
        add(f"  lost (must be 0)                 {s['lost']}")
        add(f"  duplicated (must be 0)           {s['duplicated']}")
        add(f"  kills (SIGKILL)                  {len(s['kills'])}  {s['kills_by_domain']}; down p50 "
            f"{s['down_seconds']['p50']} s, max {s['down_seconds']['max']} s")
        replicated = s["stack"] == "postgres"
        if replicated:
            add(f"    by replica                     {s['kills_by_replica']}; "
                f"{s['kills_with_a_handle_in_flight']} with a Handle to the domain in flight (on any of its replicas)")
            across = collections.Counter()
            for key, n in s["attempts_answered_across_a_kill_of_their_domain"].items():
                across[key.split(" ", 1)[0]] += n
            add(f"  attempts in flight at a kill of a replica of their domain, answered all the same  "
                f"{sum(across.values())}  {dict(sorted(across.items()))}")
            add("  errors per domain (failed attempts)  while one of its replicas is down / recovering (≤ GRACE "
                "after) / while all up")
        else:
            add("  errors per domain (failed attempts)  while down / recovering (≤ GRACE after) / while up")
        for domain in ("messaging", "payments", "ridebooking", "notes", "gateway"):
            c = s["errors_by_domain"].get(domain, {})
            if c or domain != "gateway":
                codes = ""
                if replicated and c:
                    codes = "   " + ", ".join(f"{k.split(' ', 1)[1]} {n}" for k, n in s["error_codes"].items()
                                              if k.split(" ", 1)[0] == domain)
                add(f"    {domain:<12} {c.get('down', 0):>6} / {c.get('recovering', 0):>4} / {c.get('up', 0):>4}{codes}")
        add(f"  other domains' errors while one was down (must be 0)  {len(s['other_domain_errors_while_down'])}")
        if s["calls_out_of_budget"]:
            add(f"  calls that ran out of retry budget  {s['calls_out_of_budget']}")
        add(f"  non-transport errors             {len(s['non_transport_errors'])}")
        money = s["audit"].get("money", {})
        add("  money per currency (cents)       " + ", ".join(
            f"{c} {v['before']} → {v['after']}" for c, v in money.items()))
        add("  latency per intent (acknowledged rounds: Resolve+Confirm+Handle incl. retries)")
        add(f"    {'intent':<32} {'n':>5} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  {'Handle p50/p99 ms':>18}")
        for intent, v in s["latency"].items():
            add(f"    {intent:<32} {v['n']:>5} {v['p50_ms']:>8} {v['p99_ms']:>8} {v['max_ms']:>8}  "
                f"{v['handle_p50_ms']:>8} / {v['handle_p99_ms']:<8}")
        add("  RSS at the end (MiB)             " + ", ".join(
            f"{k} {v / 1024:.1f}" for k, v in s["rss_kib"].items() if v))
        if s["failures"]:
            add("chaos: FAILED")
            for failure in s["failures"]:
                add(f"  - {str(failure)[:2000]}")
            for category, items in s["audit"].get("problems", {}).items():
                for item in items[:10]:
                    add(f"    {category}: {json.dumps(item, default=str)[:600]}")
        else:
            add("chaos: passed (every acknowledged write present exactly once, money conserved, "
                "no other domain hurt)")
        say("\n".join(lines))


def pct(values, p):
    if not values:
        return 0.0
    index = min(len(values) - 1, max(0, math.ceil(p / 100 * len(values)) - 1))
    return values[index]


def ms(seconds):
    return round(seconds * 1000, 1)


