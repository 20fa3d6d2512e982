"""The plans as files: the matrix, freshness against the generator, and that JMeter loads them all.

Loading 38 plans with one `jmeter -n -t` each would start 38 JVMs (minutes); instead one JMeter run
loads every plan through JMeter's own loader (SaveService.loadTree, as -t does) and reports what
each holds. The plans also run for real in test_jmeter_runs.py and test_load_command.py."""
import itertools
import subprocess

import generate
from benchlib.cases import cases
from benchlib.jmeter import PROPERTIES
from benchlib.paths import IDS, PLANS

LOADER = r"""
import org.apache.jmeter.JMeter
import org.apache.jmeter.save.SaveService
import org.apache.jorphan.collections.SearchByClass

def count(tree, cls) { def s = new SearchByClass(cls); tree.traverse(s); s.getSearchResults().size() }
def lines = []
new File(props.get('plans')).eachLine { path ->
    try {
        def tree = SaveService.loadTree(new File(path))
        JMeter.convertSubTree(tree, false)
        lines << [path, count(tree, org.apache.jmeter.threads.ThreadGroup),
                  count(tree, org.apache.jmeter.protocol.http.sampler.HTTPSamplerProxy),
                  count(tree, org.apache.jmeter.assertions.ResponseAssertion),
                  count(tree, org.apache.jmeter.assertions.JSONPathAssertion),
                  count(tree, org.apache.jmeter.config.CSVDataSet)].join(' ')
    } catch (Throwable e) {
        lines << path + ' failed: ' + e
    }
}
new File(props.get('report')).text = lines.join('\n') + '\n'
"""


def test_cases_follow_the_design_matrix():
    expected = [{"case": n, "requests": req, "rows": rows, "joins": joins} for n, (req, joins, rows)
                in enumerate(itertools.product((100, 250, 500), (0, 1), (1, 50, 100)), start=1)]
    assert list(cases().values()) == expected
    # The study's table printed 250/20/0 and 200/1/1 here; the matrix says otherwise.
    assert cases()[8] == {"case": 8, "requests": 250, "rows": 50, "joins": 0}
    assert cases()[16] == {"case": 16, "requests": 500, "rows": 1, "joins": 1}


def test_checked_in_plans_match_the_generator(tmp_path):
    generate.write(tmp_path)
    fresh = {p.relative_to(tmp_path) for p in tmp_path.rglob("*.jmx")}
    checked_in = {p.relative_to(PLANS) for p in PLANS.rglob("*.jmx")}
    assert checked_in == fresh, "run: python3 jmeter-plans/generate.py"
    assert len(fresh) == 38
    stale = [str(p) for p in sorted(fresh) if (PLANS / p).read_text() != (tmp_path / p).read_text()]
    assert not stale, f"stale plans {stale}; run: python3 jmeter-plans/generate.py"


def test_every_plan_loads_in_jmeter(tmp_path, launcher):
    from generate import element, plan, prop, stop_test, thread_group
    # The script runs as a pre-processor of a "stop the test" action (the shared JMeter has no
    # JSR223 Sampler, which lives in the optional ApacheJMeter_java.jar).
    script = element("JSR223PreProcessor", "TestBeanGUI", "load every plan",
                     prop("stringProp", "scriptLanguage", "groovy"), prop("stringProp", "parameters", ""),
                     prop("stringProp", "filename", ""), prop("stringProp", "cacheKey", "true"),
                     prop("stringProp", "script", LOADER))
    stop = stop_test("then stop")
    loader = tmp_path / "loader.jmx"
    loader.write_text(plan("load every plan", generate.timing(str(IDS)),
                           [thread_group("loader", "1", [(stop, generate.tree((script, None)))])], clock=False))
    plans = sorted(PLANS.rglob("*.jmx"))
    (tmp_path / "plans.txt").write_text("".join(f"{p}\n" for p in plans))
    report = tmp_path / "report.txt"
    run = subprocess.run([launcher, "-n", "-t", str(loader), "-q", str(PROPERTIES), "-j", str(tmp_path / "jmeter.log"),
                          f"-Jplans={tmp_path / 'plans.txt'}", f"-Jreport={report}", "-Jwarmup=0", "-Jduration=60"],
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stdout + run.stderr
    found = dict(line.split(" ", 1) for line in report.read_text().splitlines())
    assert set(found) == {str(p) for p in plans}
    for path, counts in found.items():
        # thread groups (clock + load), HTTP samplers (the 4 endpoints in the parametrized plans,
        # one in the standalone ones), status and body assertions (one each per sampler), CSV data sets
        parametrized = "standalone" not in path
        assert counts == ("2 4 4 4 2" if parametrized else "2 1 1 1 2"), f"{path}: {counts}"
