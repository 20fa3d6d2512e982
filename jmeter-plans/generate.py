"""Write the JMeter plans from one description, so they cannot drift apart.

- `rest.jmx`, `graphql.jmx`: one plan per API style, driven by `-J` properties (host, port,
  threads, rampup, warmup, duration, rows, joins, comment_ids, user_ids). `cli/jmeter.py` runs them.
- `standalone/{rest,graphql}-case-NN.jmx`: one plan per API x case with the case's threads, rows
  and endpoint baked in, for people who open plans in the JMeter GUI (as the study had).
  Host, port and timings stay `-J` properties with defaults shown in the plan.

How a plan loads the server: each thread loops with no think time for warmup + duration seconds,
so the case's `requests` is a constant number of requests in flight (closed model). Warm-up is
excluded by label: a setUp group sends one request (compiling the assertion) and starts the clock;
the assertion renames every sample that starts within WARMUP seconds of that to
`warmup <label>`, and `cli/jmeter.py summarize_jtl` leaves those out.

Run `python3 jmeter-plans/generate.py` after changing this file; a test fails if the checked-in
plans differ from what it writes.
"""
import argparse
import copy
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from cli.jmeter import DEFAULTS, cases  # noqa: E402

APIS = ("rest", "graphql")
COMMENT = "id threadId userId body dateMade dateLastUpdated"
USER = "user { id name email phone }"

# endpoint key -> REST path, GraphQL operation. `{rows}` is the case's row count.
ENDPOINTS = {
    "comment": {
        "path": "/rest/comment/${comment_id}", "label": "GET /rest/comment/{id}",
        "query": f"query CommentById($id: ID!) {{ commentById(id: $id) {{ {COMMENT} }} }}",
        "operation": "CommentById", "variables": '{"id":"${comment_id}"}'},
    "comments": {
        "path": "/rest/comments/{rows}", "label": "GET /rest/comments/{rows}",
        "query": f"query CommentsByLimit($limit: Int!) {{ commentsByLimit(limit: $limit) {{ {COMMENT} }} }}",
        "operation": "CommentsByLimit", "variables": '{"limit":{rows}}'},
    "user-comment": {
        "path": "/rest/user/${user_id}/comment", "label": "GET /rest/user/{id}/comment",
        "query": f"query CommentByUserId($id: ID!) {{ commentByUserId(id: $id) {{ {COMMENT} {USER} }} }}",
        "operation": "CommentByUserId", "variables": '{"id":"${user_id}"}'},
    "user-comments": {
        "path": "/rest/user/${user_id}/comments/{rows}", "label": "GET /rest/user/{id}/comments/{rows}",
        "query": f"query CommentsByUserId($id: ID!, $limit: Int!) {{ commentsByUserId(id: $id, limit: $limit) {{ {COMMENT} {USER} }} }}",
        "operation": "CommentsByUserId", "variables": '{"id":"${user_id}","limit":{rows}}'},
}

# Runs after every sample (Groovy, compiled once). Arguments: api, endpoint key, rows.
ASSERTION = r"""// Labels warm-up samples so statistics can leave them out, then checks the answer against
// the API contract: a wrong answer (status, shape, row count, join) must count as an error.
import groovy.json.JsonSlurper

// testbed.measure_from is set by the prepare group just before the load starts.
if (prev.getStartTime() < Long.parseLong(props.getProperty('testbed.measure_from', '9223372036854775807'))) {
    prev.setSampleLabel('warmup ' + prev.getSampleLabel())
}
String api = args[0], endpoint = args[1]
int rows = Integer.parseInt(args[2])
boolean byUser = endpoint.startsWith('user-'), list = endpoint.endsWith('s')
String wanted = vars.get(byUser ? 'user_id' : 'comment_id')
Map fields = ['comment': 'commentById', 'comments': 'commentsByLimit',
              'user-comment': 'commentByUserId', 'user-comments': 'commentsByUserId']

String problem = { ->
    if (prev.getResponseCode() != '200') return 'status ' + prev.getResponseCode() + ', expected 200'
    def json
    try { json = new JsonSlurper().parseText(prev.getResponseDataAsString()) }
    catch (Exception e) { return 'body is not JSON' }
    if (api == 'graphql') {
        if (!(json instanceof Map) || json.errors != null) return 'GraphQL errors or no object'
        if (!(json.data instanceof Map)) return 'no data'
        json = json.data[fields[endpoint]]
    }
    if (list != (json instanceof List)) return list ? 'expected an array' : 'expected one comment'
    List comments = list ? json : [json]
    if (comments.size() != rows) return comments.size() + ' rows, expected ' + rows
    def previous = null
    for (c in comments) {
        if (!(c instanceof Map) || c.id == null || c.body == null) return 'not a comment: ' + c
        long id = Long.parseLong(String.valueOf(c.id))
        if (previous != null && id <= previous) return 'comments not in id order'
        previous = id
        if (endpoint == 'comment' && String.valueOf(c.id) != wanted) return 'comment ' + c.id + ', expected ' + wanted
        if (byUser) {
            if (String.valueOf(c.userId) != wanted) return 'comment of user ' + c.userId + ', expected ' + wanted
            if (!(c.user instanceof Map) || String.valueOf(c.user.id) != wanted || c.user.name == null)
                return 'joined user missing or wrong'
        } else if (c.containsKey('user')) return 'unexpected user on a non-join case'
    }
    return null
}()
if (problem != null) {
    AssertionResult.setFailure(true)
    AssertionResult.setFailureMessage(problem)
}
"""

HOW_TO_RUN = """Generated by jmeter-plans/generate.py: edit that, not this file.
Each thread sends requests back to back (no think time) for WARMUP + DURATION seconds; samples that
start during the warm-up are labelled 'warmup ...' and left out of the statistics.
Every response is asserted: status 200 and a body of the expected shape, row count and join.
"""


def prop(kind, name, value):
    e = ET.Element(kind, name=name)
    e.text = str(value).lower() if kind == "boolProp" else str(value)
    return e


def element(tag, gui, name, *props, cls=None):
    e = ET.Element(tag, guiclass=gui, testclass=cls or tag, testname=name)
    e.extend(props)
    return e


def tree(*pairs):
    """A JMeter hashTree: each element is followed by the hashTree of its children."""
    t = ET.Element("hashTree")
    for node, children in pairs:
        t.append(node)
        t.append(children if children is not None else ET.Element("hashTree"))
    return t


def arguments(name, values: dict):
    coll = ET.Element("collectionProp", name="Arguments.arguments")
    for key, value in values.items():
        arg = ET.SubElement(coll, "elementProp", name=key, elementType="Argument")
        arg.extend([prop("stringProp", "Argument.name", key),
                    prop("stringProp", "Argument.value", value),
                    prop("stringProp", "Argument.metadata", "=")])
    e = ET.Element("elementProp", name=name, elementType="Arguments", guiclass="ArgumentsPanel",
                   testclass="Arguments", testname="User Defined Variables")
    e.append(coll)
    return e


def headers(wanted: dict):
    coll = ET.Element("collectionProp", name="HeaderManager.headers")
    for key, value in wanted.items():
        h = ET.SubElement(coll, "elementProp", name="", elementType="Header")
        h.extend([prop("stringProp", "Header.name", key), prop("stringProp", "Header.value", value)])
    return element("HeaderManager", "HeaderPanel", "HTTP Header Manager", coll)


def http_defaults():
    return element(
        "ConfigTestElement", "HttpDefaultsGui", "HTTP Request Defaults",
        arguments("HTTPsampler.Arguments", {}),
        prop("stringProp", "HTTPSampler.domain", "${HOST}"),
        prop("stringProp", "HTTPSampler.port", "${PORT}"),
        prop("stringProp", "HTTPSampler.protocol", "http"),
        prop("stringProp", "HTTPSampler.implementation", "HttpClient4"),
        # A hung server must end as errors, not as a run that never finishes.
        prop("stringProp", "HTTPSampler.connect_timeout", "10000"),
        prop("stringProp", "HTTPSampler.response_timeout", "60000"))


def csv_data_set(name, filename, variable):
    # Shared by all threads and recycled: one id sequence per run, the same for every framework.
    return element(
        "CSVDataSet", "TestBeanGUI", name,
        prop("stringProp", "delimiter", ","), prop("stringProp", "fileEncoding", "UTF-8"),
        prop("stringProp", "filename", filename), prop("boolProp", "ignoreFirstLine", True),
        prop("boolProp", "quotedData", False), prop("boolProp", "recycle", True),
        prop("stringProp", "shareMode", "shareMode.all"), prop("boolProp", "stopThread", False),
        prop("stringProp", "variableNames", variable))


def sampler(api, key, rows, port=None):
    ep = ENDPOINTS[key]
    label = ep["label"].replace("{rows}", rows)
    if api == "rest":
        path, method, body = ep["path"].replace("{rows}", rows), "GET", None
    else:
        path, method = "/graphql", "POST"
        label = f"POST /graphql {ep['operation']}" + (f" {rows}" if key.endswith("s") else "")
        body = ('{"query":"' + ep["query"] + '","variables":' + ep["variables"].replace("{rows}", rows)
                + ',"operationName":"' + ep["operation"] + '"}')
    if body is None:
        args = arguments("HTTPsampler.Arguments", {})
    else:
        coll = ET.Element("collectionProp", name="Arguments.arguments")
        arg = ET.SubElement(coll, "elementProp", name="", elementType="HTTPArgument")
        arg.extend([prop("boolProp", "HTTPArgument.always_encode", False),
                    prop("stringProp", "Argument.value", body),
                    prop("stringProp", "Argument.metadata", "=")])
        args = ET.Element("elementProp", name="HTTPsampler.Arguments", elementType="Arguments")
        args.append(coll)
    http = element(
        "HTTPSamplerProxy", "HttpTestSampleGui", label, *([prop("boolProp", "HTTPSampler.postBodyRaw", True)]
                                                            if body else []),
        args, *([prop("stringProp", "HTTPSampler.port", port)] if port else []),
        prop("stringProp", "HTTPSampler.path", path), prop("stringProp", "HTTPSampler.method", method),
        prop("boolProp", "HTTPSampler.follow_redirects", False),
        prop("boolProp", "HTTPSampler.auto_redirects", False),
        prop("boolProp", "HTTPSampler.use_keepalive", True),
        prop("boolProp", "HTTPSampler.DO_MULTIPART_POST", False))
    check = element(
        "JSR223Assertion", "TestBeanGUI", "contract: status 200, shape, rows, join",
        prop("stringProp", "scriptLanguage", "groovy"),
        prop("stringProp", "parameters", f"{api} {key} {rows}"),
        prop("stringProp", "filename", ""), prop("stringProp", "cacheKey", "true"),
        prop("stringProp", "script", ASSERTION))
    children = [(check, None)]
    if body is not None:
        children.insert(0, (headers({"Content-Type": "application/json"}), None))
    return http, tree(*children)


def endpoint_key(rows, joins):
    return ("user-" if int(joins) else "") + ("comment" if int(rows) == 1 else "comments")


def thread_group(name, threads, body, setup=False):
    """Threads looping for WARMUP + DURATION seconds, or (setup) one thread, once, before them."""
    loop = ET.Element("elementProp", name="ThreadGroup.main_controller", elementType="LoopController",
                      guiclass="LoopControlPanel", testclass="LoopController", testname="Loop Controller")
    loop.extend([prop("stringProp", "LoopController.loops", "1" if setup else "-1"),
                 prop("boolProp", "LoopController.continue_forever", False)])
    kind = "SetupThreadGroup" if setup else "ThreadGroup"
    group = element(
        kind, kind + "Gui", name,
        prop("stringProp", "ThreadGroup.num_threads", "1" if setup else threads),
        prop("stringProp", "ThreadGroup.ramp_time", "0" if setup else "${RAMPUP}"),
        # Keeps each thread's keep-alive connection across iterations (no reconnect per request).
        prop("boolProp", "ThreadGroup.same_user_on_next_iteration", True),
        prop("stringProp", "ThreadGroup.on_sample_error", "continue"), loop,
        prop("boolProp", "ThreadGroup.scheduler", not setup),
        prop("stringProp", "ThreadGroup.duration", "" if setup else "${__intSum(${WARMUP},${DURATION})}"),
        prop("stringProp", "ThreadGroup.delay", "0"),
        prop("boolProp", "ThreadGroup.delayedStart", False))
    return group, tree(*body)


START_CLOCK = """// The load starts right after this: samples that start within WARMUP seconds are warm-up.
props.put('testbed.measure_from', String.valueOf(System.currentTimeMillis() + 1000L * Long.parseLong(vars.get('WARMUP'))))
"""


def prepare_group(first_group):
    """Before the load: one request like the load's first (it compiles the assertion, which can
    take seconds on a busy machine), then start the warm-up clock (see ASSERTION)."""
    script = element("JSR223PreProcessor", "TestBeanGUI", "start the warm-up clock",
                     prop("stringProp", "scriptLanguage", "groovy"), prop("stringProp", "parameters", ""),
                     prop("stringProp", "filename", ""), prop("stringProp", "cacheKey", "true"),
                     prop("stringProp", "script", START_CLOCK))
    go = element("TestAction", "TestActionGui", "then start the load", prop("intProp", "ActionProcessor.action", 1),
                 prop("intProp", "ActionProcessor.target", 0), prop("stringProp", "ActionProcessor.duration", "0"))
    children = copy.deepcopy(first_group[1])
    body = list(zip(children[0::2], children[1::2]))
    return thread_group("prepare: one request then start the clock", "1", [*body, (go, tree((script, None)))],
                        setup=True)


def plan(title, variables, groups, derived=None, prepare=True):
    """A test plan: variables (names -> values), derived variables (computed from those when the
    test starts: one element cannot refer to its own), then thread groups as (element, hashTree)
    pairs, preceded by the prepare group unless prepare is False."""
    config = []
    if derived:
        derived_element = arguments("", derived)
        derived_element.tag = "Arguments"
        derived_element.attrib = {"guiclass": "ArgumentsPanel", "testclass": "Arguments",
                                  "testname": "Derived values (computed when the test starts)"}
        config.append((derived_element, None))
    if prepare:
        groups = [prepare_group(groups[0]), *groups]
    test_plan = element(
        "TestPlan", "TestPlanGui", title, prop("stringProp", "TestPlan.comments", HOW_TO_RUN),
        prop("boolProp", "TestPlan.functional_mode", False),
        prop("boolProp", "TestPlan.serialize_threadgroups", False),
        arguments("TestPlan.user_defined_variables", variables))
    root = ET.Element("jmeterTestPlan", version="1.2", properties="5.0", jmeter="5.6.3")
    root.append(tree((test_plan, tree(
        *config, (http_defaults(), None), (headers({"Accept": "application/json"}), None),
        (csv_data_set("comment ids", "${COMMENT_IDS}", "comment_id"), None),
        (csv_data_set("user ids", "${USER_IDS}", "user_id"), None),
        *groups))))
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def timing(ids_dir):
    return {"HOST": "${__P(host,127.0.0.1)}", "PORT": "${__P(port,3000)}",
            "RAMPUP": f"${{__P(rampup,{DEFAULTS['rampup_s']})}}",
            "WARMUP": f"${{__P(warmup,{DEFAULTS['warmup_s']})}}",
            "DURATION": f"${{__P(duration,{DEFAULTS['duration_s']})}}",
            "COMMENT_IDS": f"${{__P(comment_ids,{ids_dir}/comment_ids.csv)}}",
            "USER_IDS": f"${{__P(user_ids,{ids_dir}/user_ids.csv)}}"}


def parametrized(api):
    """The plan `./testbed load` and the orchestrator run: rows and joins pick the endpoint."""
    variables = {**timing("../.testbed/ids"), "THREADS": "${__P(threads,100)}",
                 "ROWS": "${__P(rows,1)}", "JOINS": "${__P(joins,0)}"}
    derived = {"ENDPOINT": "${__groovy((vars.get('JOINS') == '1' ? 'user-' : '') + "
                           "(vars.get('ROWS') == '1' ? 'comment' : 'comments'))}"}
    branches = []
    for key in ENDPOINTS:
        simple = element("GenericController", "LogicControllerGui", key)
        branches.append((simple, tree(sampler(api, key, "${ROWS}"))))
    switch = element("SwitchController", "SwitchControllerGui", "endpoint for rows and joins",
                     prop("stringProp", "SwitchController.value", "${ENDPOINT}"))
    group = thread_group(f"{api} load", "${THREADS}", [(switch, tree(*branches))])
    return plan(f"{api}: one case of the matrix, chosen by -Jrows and -Jjoins", variables, [group], derived)


def case_group(api, case, threads=None, port=None, name=None):
    """A thread group for one case with its endpoint and rows baked in. By default it has the
    case's requests as threads and uses the plan's PORT; several groups make one plan that
    loads several cases (or servers) at once."""
    key = endpoint_key(case["rows"], case["joins"])
    return thread_group(name or f"{api} case {case['case']}", str(threads or case["requests"]),
                        [sampler(api, key, str(case["rows"]), port and str(port))])


def standalone(api, case):
    """One case with its values baked in; host, port and timings are still -J properties."""
    title = (f"{api} case {case['case']}: {case['requests']} requests, {case['rows']} rows, "
             f"{case['joins']} joins")
    return plan(title, timing("../../.testbed/ids"), [case_group(api, case)])


def all_plans() -> dict:
    """Relative path -> plan text, for everything this script writes."""
    plans = {f"{api}.jmx": parametrized(api) for api in APIS}
    for api in APIS:
        for case in cases():
            plans[f"standalone/{api}-case-{case['case']:02d}.jmx"] = standalone(api, case)
    return plans


def write(out: Path) -> list[Path]:
    written = []
    for rel, text in all_plans().items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(path)
    return written


def parse_args(argv):
    p = argparse.ArgumentParser(description="Write the JMeter plans (parametrized and standalone).")
    p.add_argument("--out", type=Path, default=HERE, help="folder to write into (default: jmeter-plans/)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    print(f"wrote {len(write(args.out))} plans under {args.out}")


if __name__ == "__main__":
    main()
