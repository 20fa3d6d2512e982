"""JMeter plans as XML, built from one description: the HTTP samplers and their assertions for
each endpoint of the contract and the elements every plan shares. jmeter-plans/generate.py writes
the checked-in plans from them, and benchlib/run_plans.py the plans a run measures with.
"""
import xml.etree.ElementTree as ET

COMMENT = "id threadId userId body dateMade dateLastUpdated"
USER = "user { id name email phone }"

# endpoint key -> REST path, GraphQL operation. `{rows}` is the case's row count.
ENDPOINTS = {
    "comment": {
        "path": "/rest/comment/${comment_id}", "label": "GET /rest/comment/{id}",
        "query": f"query CommentById($id: ID!) {{ commentById(id: $id) {{ {COMMENT} }} }}",
        "operation": "CommentById", "field": "commentById", "variables": '{"id":"${comment_id}"}'},
    "comments": {
        "path": "/rest/comments/{rows}", "label": "GET /rest/comments/{rows}",
        "query": f"query CommentsByLimit($limit: Int!) {{ commentsByLimit(limit: $limit) {{ {COMMENT} }} }}",
        "operation": "CommentsByLimit", "field": "commentsByLimit", "variables": '{"limit":{rows}}'},
    "user-comment": {
        "path": "/rest/user/${user_id}/comment", "label": "GET /rest/user/{id}/comment",
        "query": f"query CommentByUserId($id: ID!) {{ commentByUserId(id: $id) {{ {COMMENT} {USER} }} }}",
        "operation": "CommentByUserId", "field": "commentByUserId", "variables": '{"id":"${user_id}"}'},
    "user-comments": {
        "path": "/rest/user/${user_id}/comments/{rows}", "label": "GET /rest/user/{id}/comments/{rows}",
        "query": f"query CommentsByUserId($id: ID!, $limit: Int!) "
                 f"{{ commentsByUserId(id: $id, limit: $limit) {{ {COMMENT} {USER} }} }}",
        "operation": "CommentsByUserId", "field": "commentsByUserId",
        "variables": '{"id":"${user_id}","limit":{rows}}'},
}


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


def csv_data_set(name, filename, variable, share_mode="shareMode.all", once=False):
    """Recycled ids shared by the threads: by all of a plan's (shareMode.all), or read afresh by
    each thread group (shareMode.group), so every measurement of a batch gets the same sequence.
    With `once`, the file is read through once and a thread that finds it at its end stops."""
    return element(
        "CSVDataSet", "TestBeanGUI", name,
        prop("stringProp", "delimiter", ","), prop("stringProp", "fileEncoding", "UTF-8"),
        prop("stringProp", "filename", filename), prop("boolProp", "ignoreFirstLine", True),
        prop("boolProp", "quotedData", False), prop("boolProp", "recycle", not once),
        prop("stringProp", "shareMode", share_mode), prop("boolProp", "stopThread", once),
        prop("stringProp", "variableNames", variable))


def request(api, key, rows) -> tuple[str, str, str | None]:
    """(method, path, body or None) of the endpoint `key` for `rows`, with the ids still as
    JMeter's ${comment_id} / ${user_id}: the one description JMeter's plans and wrk's script
    (benchlib/wrk_measure.lua, through collect/load/batch.write_wrk_plan) both send."""
    ep = ENDPOINTS[key]
    if api == "rest":
        return "GET", ep["path"].replace("{rows}", rows), None
    return "POST", "/graphql", ('{"query":"' + ep["query"] + '","variables":' + ep["variables"].replace("{rows}", rows)
                                + ',"operationName":"' + ep["operation"] + '"}')


def label(api, key, rows) -> str:
    """A sample's label: the request as a reader knows it (`GET /rest/comments/50`)."""
    ep = ENDPOINTS[key]
    if api == "graphql":
        return f"POST /graphql {ep['operation']}" + (f" {rows}" if key.endswith("s") else "")
    return ep["label"].replace("{rows}", rows)


def sampler(api, key, rows, port=None, host=None):
    method, path, body = request(api, key, rows)
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
        "HTTPSamplerProxy", "HttpTestSampleGui", "${PHASE}" + label(api, key, rows),
        *([prop("boolProp", "HTTPSampler.postBodyRaw", True)] if body else []),
        args, *([prop("stringProp", "HTTPSampler.domain", host)] if host else []),
        *([prop("stringProp", "HTTPSampler.port", port)] if port else []),
        prop("stringProp", "HTTPSampler.path", path), prop("stringProp", "HTTPSampler.method", method),
        prop("boolProp", "HTTPSampler.follow_redirects", False),
        prop("boolProp", "HTTPSampler.auto_redirects", False),
        prop("boolProp", "HTTPSampler.use_keepalive", True),
        prop("boolProp", "HTTPSampler.DO_MULTIPART_POST", False))
    children = [(status_200(), None), (json_check(api, key, rows), None)]
    if body is not None:
        children.insert(0, (headers({"Content-Type": "application/json"}), None))
    return http, tree(*children)


def status_200():
    # JMeter alone would pass any 2xx, such as the 204 the study's apps sent for errors.
    return status_is("200")


def status_is(code: str):
    """The status is `code`. For an error status the assertion decides success itself ("Ignore
    Status"): JMeter alone fails every 4xx, so the ceiling's asserted 404s counted as errors."""
    strings = ET.Element("collectionProp", name="Asserion.test_strings")
    strings.append(prop("stringProp", "49586", code))
    return element("ResponseAssertion", "AssertionGui", f"status {code}", strings,
                   prop("stringProp", "Assertion.custom_message", f"status is not {code}"),
                   prop("stringProp", "Assertion.test_field", "Assertion.response_code"),
                   prop("boolProp", "Assertion.assume_success", int(code) >= 400),
                   prop("intProp", "Assertion.test_type", 8))


def json_check(api, key, rows):
    """The body parses as JSON and holds the expected comments: the requested one; ids 1..rows in
    order (the seeded table's first rows); or `rows` comments each joined to the requested user.

    One built-in assertion (one parse) per sample: a JSR223 (Groovy) assertion creates a script
    engine per sample and doubled JMeter's CPU per request. Expected values are JSON: GraphQL
    writes ids as strings. rows is a number, or "${ROWS}" in the parametrized plans, which then
    use the derived ROWS_LESS_1 and ID_LIST_REST / ID_LIST_GRAPHQL."""
    where = "$" if api == "rest" else f"$.data.{ENDPOINTS[key]['field']}"
    quote = '"' if api == "graphql" else ""
    regex = False
    if key == "comment":
        path, expected = f"{where}.id", f"{quote}${{comment_id}}{quote}"
    elif key == "user-comment":
        path, expected = f"{where}.user.id", f"{quote}${{user_id}}{quote}"
    elif key == "comments":
        path = f"{where}[*].id"
        expected = (f"${{ID_LIST_{api.upper()}}}" if not rows.isdigit() else
                    "[" + ",".join(f"{quote}{i}{quote}" for i in range(1, int(rows) + 1)) + "]")
    else:
        user, less_1 = f"{quote}${{user_id}}{quote}", "${ROWS_LESS_1}" if not rows.isdigit() else int(rows) - 1
        path, expected, regex = f"{where}[*].user.id", rf"\[({user},){{{less_1}}}{user}\]", True
    return element("JSONPathAssertion", "JSONPathAssertionGui", f"body: {path} is {expected}",
                   prop("stringProp", "JSON_PATH", path), prop("stringProp", "EXPECTED_VALUE", expected),
                   prop("boolProp", "JSONVALIDATION", True), prop("boolProp", "EXPECT_NULL", False),
                   prop("boolProp", "INVERT", False), prop("boolProp", "ISREGEX", regex))


# The load generator's ceiling (collect/passes/ceiling.py) is measured against a path no implementation
# serves: the app answers 404 from its router, with no database and no serialisation of rows, so
# nearly all the CPU a request costs is the load generator's own.
CEILING_PATH = "/testbed-ceiling"


def ceiling_request(host, port):
    """GET CEILING_PATH, asserted 404: the cheapest request an app answers."""
    http = element(
        "HTTPSamplerProxy", "HttpTestSampleGui", "${PHASE}GET " + CEILING_PATH, arguments("HTTPsampler.Arguments", {}),
        prop("stringProp", "HTTPSampler.domain", host), prop("stringProp", "HTTPSampler.port", port),
        prop("stringProp", "HTTPSampler.path", CEILING_PATH),
        prop("stringProp", "HTTPSampler.method", "GET"), prop("boolProp", "HTTPSampler.follow_redirects", False),
        prop("boolProp", "HTTPSampler.auto_redirects", False), prop("boolProp", "HTTPSampler.use_keepalive", True),
        prop("boolProp", "HTTPSampler.DO_MULTIPART_POST", False))
    return http, tree((status_is("404"), None))


def endpoint_key(rows, joins):
    return ("user-" if int(joins) else "") + ("comment" if int(rows) == 1 else "comments")


def pause(name, duration_ms):
    return element("TestAction", "TestActionGui", name, prop("intProp", "ActionProcessor.action", 1),
                   prop("intProp", "ActionProcessor.target", 0),
                   prop("stringProp", "ActionProcessor.duration", duration_ms))


def stop_test(name):
    """Asks every thread to stop once its request in flight is done."""
    return element("TestAction", "TestActionGui", name, prop("intProp", "ActionProcessor.action", 0),
                   prop("intProp", "ActionProcessor.target", 2), prop("stringProp", "ActionProcessor.duration", "0"))


def per_iteration(name, values: dict):
    """User Parameters evaluated as each iteration of the thread group starts (names -> values)."""
    names = ET.Element("collectionProp", name="UserParameters.names")
    values_prop = ET.Element("collectionProp", name="UserParameters.thread_values")
    column = ET.SubElement(values_prop, "collectionProp", name="all threads")
    for key, value in values.items():
        names.append(prop("stringProp", key, key))
        column.append(prop("stringProp", key, value))
    return element("UserParameters", "UserParametersGui", name, names, values_prop,
                   prop("boolProp", "UserParameters.per_iteration", True))


def looping_group(name, threads, rampup, duration):
    """A thread group whose threads loop until told to stop, with a scheduler end time (seconds)
    as a backstop; each request is an iteration of its own."""
    loop = ET.Element("elementProp", name="ThreadGroup.main_controller", elementType="LoopController",
                      guiclass="LoopControlPanel", testclass="LoopController", testname="Loop Controller")
    loop.extend([prop("stringProp", "LoopController.loops", "-1"),
                 prop("boolProp", "LoopController.continue_forever", False)])
    return element(
        "ThreadGroup", "ThreadGroupGui", name,
        prop("stringProp", "ThreadGroup.num_threads", threads),
        prop("stringProp", "ThreadGroup.ramp_time", rampup),
        # Keeps each thread's keep-alive connection across iterations (no reconnect per request).
        prop("boolProp", "ThreadGroup.same_user_on_next_iteration", True),
        prop("stringProp", "ThreadGroup.on_sample_error", "continue"), loop,
        prop("boolProp", "ThreadGroup.scheduler", True),
        prop("stringProp", "ThreadGroup.duration", duration),
        prop("stringProp", "ThreadGroup.delay", "0"),
        # One end time for the whole group: without delayed start each thread's end is counted
        # from its own start.
        prop("boolProp", "ThreadGroup.delayedStart", True))


def once(kind, gui, name):
    """A thread group (of `kind`: ThreadGroup, SetupThreadGroup) of one thread that runs its
    children once."""
    loop = ET.Element("elementProp", name="ThreadGroup.main_controller", elementType="LoopController",
                      guiclass="LoopControlPanel", testclass="LoopController", testname="Loop Controller")
    loop.extend([prop("stringProp", "LoopController.loops", "1"),
                 prop("boolProp", "LoopController.continue_forever", False)])
    return element(kind, gui, name, prop("stringProp", "ThreadGroup.num_threads", "1"),
                   prop("stringProp", "ThreadGroup.ramp_time", "0"),
                   prop("stringProp", "ThreadGroup.on_sample_error", "continue"), loop,
                   prop("boolProp", "ThreadGroup.scheduler", False))


def if_true(name, condition):
    """Runs its children when `condition` evaluates to the text "true"."""
    return element("IfController", "IfControllerPanel", name,
                   prop("stringProp", "IfController.condition", condition),
                   prop("boolProp", "IfController.evaluateAll", False),
                   prop("boolProp", "IfController.useExpression", True))


def stop_thread(name):
    """Ends the current thread; its request in flight has already finished."""
    return element("TestAction", "TestActionGui", name, prop("intProp", "ActionProcessor.action", 0),
                   prop("intProp", "ActionProcessor.target", 0), prop("stringProp", "ActionProcessor.duration", "0"))


def result_file(path):
    """Writes the samples of the thread group it sits in, as a CSV JTL (the format is set by
    jmeter-plans/testbed.properties)."""
    return element("ResultCollector", "SimpleDataWriter", "samples of this measurement",
                   prop("boolProp", "ResultCollector.error_logging", False),
                   prop("stringProp", "filename", str(path)))


def test_plan(title, comments, variables, config, groups, serialize=False):
    """The whole plan: HTTP defaults and the Accept header for every request, then `config`
    elements and thread groups, each an (element, hashTree) pair. With `serialize`, JMeter runs
    the thread groups one after another."""
    plan = element(
        "TestPlan", "TestPlanGui", title, prop("stringProp", "TestPlan.comments", comments),
        prop("boolProp", "TestPlan.functional_mode", False),
        prop("boolProp", "TestPlan.serialize_threadgroups", serialize),
        arguments("TestPlan.user_defined_variables", variables))
    root = ET.Element("jmeterTestPlan", version="1.2", properties="5.0", jmeter="5.6.3")
    root.append(tree((plan, tree((http_defaults(), None), (headers({"Accept": "application/json"}), None),
                                 *config, *groups))))
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
