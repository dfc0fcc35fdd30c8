"""A real program's pinned findings (docs/diagnostics.md, "On real programs"), as
integ_check's --findings checks them for the Vulkan programs: SPEC|...|SPEC or "none", each
SPEC ID:SEVERITY[@TEXT], matched by a diagnostic with that id and severity whose site holds
TEXT. Every diagnostic of the report must match a SPEC, and every SPEC a diagnostic."""


def _matches(spec, d):
    head, _, text = spec.partition("@")
    ident, _, severity = head.rpartition(":")
    return d.get("id") == ident and d.get("severity") == severity and (not text or text in d.get("site", ""))


def check(diagnostics, specs):
    """The failures, one line each (empty: the report has exactly the findings specs pins)."""
    wanted = [] if specs == "none" else specs.split("|")
    errors = []
    for d in diagnostics:
        if not any(_matches(s, d) for s in wanted):
            errors.append("diagnostic %s (%s) at %s is not among the expected findings %s" % (
                d.get("id"), d.get("severity"), d.get("site"), specs))
    for s in wanted:
        if not any(_matches(s, d) for d in diagnostics):
            errors.append("expected finding %s is missing" % s)
    return errors
