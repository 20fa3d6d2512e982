using System.Net;
using System.Text.Json;

namespace AspnetApi.Tests;

/// <summary>What a run records about the process: the `testbed-loaded` line, parsed.</summary>
static class LoadedLine
{
    const string Prefix = "testbed-loaded ";

    public static Dictionary<string, string> Of(RunningApp app)
    {
        var line = app.Output.Split('\n').Select(l => l.Trim()).Single(l => l.StartsWith(Prefix));
        return JsonSerializer.Deserialize<Dictionary<string, string>>(line[Prefix.Length..])!;
    }

    /// <summary>Server GC needs more than one processor: on one, the runtime runs Workstation GC
    /// whatever the settings say, and DATAS with it is off.</summary>
    public static bool OnSeveralProcessors(Dictionary<string, string> loaded) => int.Parse(loaded["processor_count"]) > 1;

    /// <summary>The runtime version a publish folder carries (self-contained: includedFrameworks).</summary>
    public static string IncludedRuntime(string appFolder)
    {
        using var config = JsonDocument.Parse(File.ReadAllText(Path.Combine(appFolder, "AspnetApi.runtimeconfig.json")));
        return config.RootElement.GetProperty("runtimeOptions").GetProperty("includedFrameworks").EnumerateArray()
            .Single(f => f.GetProperty("name").GetString() == "Microsoft.NETCore.App").GetProperty("version").GetString()!;
    }

    public static JsonElement ConfigProperties(string appFolder)
    {
        using var config = JsonDocument.Parse(File.ReadAllText(Path.Combine(appFolder, "AspnetApi.runtimeconfig.json")));
        return config.RootElement.GetProperty("runtimeOptions").GetProperty("configProperties").Clone();
    }
}

/// <summary>The default: `dotnet AspnetApi.dll` on the shared .NET 10 runtime, minimal APIs.</summary>
[Collection(AppCollection.Name)]
public sealed class DefaultRuntimeTests(RunningApp app)
{
    [Fact]
    public void LoadedLine_ReportsTheSharedRuntimeThatRuns()
    {
        var loaded = LoadedLine.Of(app);
        // The shared runtime is picked when the process starts (roll-forward), so the version is
        // read back from where CoreLib was loaded, not from the manifest or the runtimeconfig.
        Assert.Equal("10", loaded["runtime_version"].Split('.')[0]);
        Assert.Equal(".NET " + loaded["runtime_version"], loaded["runtime"]);
        Assert.Equal(loaded["runtime_version"], Path.GetFileName(loaded["runtime_dir"]));
        Assert.Equal("false", loaded["self_contained"]);
        Assert.Equal("minimal", loaded["api_style"]);
    }

    [Fact]
    public void LoadedLine_ReportsServerGcWithDatasInForce()
    {
        var loaded = LoadedLine.Of(app);
        Assert.Equal(LoadedLine.OnSeveralProcessors(loaded) ? ("server", "true", "1", "true") : ("workstation", "true", "1", "false"),
            (loaded["gc_mode"], loaded["concurrent_gc"], loaded["gc_dynamic_adaptation_mode"], loaded["gc_datas"]));
        Assert.True(int.Parse(loaded["gc_heap_count"]) >= 1);
        Assert.Equal("none", loaded["gc_heap_hard_limit_mb"]);
        Assert.True(long.Parse(loaded["gc_total_available_memory_mb"]) > 0);
    }
}

/// <summary>
/// Variant no-datas: the same build, and the GC itself says DATAS is off (the runtimeconfig.json
/// still says 1: only the environment variable turns it off, so AppContext would not show it).
/// </summary>
[Collection(NoDatasAppCollection.Name)]
public sealed class NoDatasTests(RunningAppWithoutDatas app)
{
    [Fact]
    public void LoadedLine_ReportsServerGcWithoutDatas()
    {
        var loaded = LoadedLine.Of(app);
        Assert.Equal((LoadedLine.OnSeveralProcessors(loaded) ? "server" : "workstation", "true", "0", "false"),
            (loaded["gc_mode"], loaded["concurrent_gc"], loaded["gc_dynamic_adaptation_mode"], loaded["gc_datas"]));
        // Without DATAS Server GC has one heap per core from the start.
        if (LoadedLine.OnSeveralProcessors(loaded))
            Assert.Equal(loaded["processor_count"], loaded["gc_heap_count"]);
        Assert.Equal("1", LoadedLine.ConfigProperties(Path.GetDirectoryName(RunningApp.PublishedApp)!)
            .GetProperty("System.GC.DynamicAdaptationMode").ToString());
    }
}

/// <summary>Variant mvc: the same build, MVC controllers, and it says so.</summary>
[Collection(ControllersAppCollection.Name)]
public sealed class ControllersStyleTests(RunningAppWithControllers app)
{
    [Fact]
    public void LoadedLine_NamesTheControllersStyle() =>
        Assert.Equal("controllers", LoadedLine.Of(app)["api_style"]);
}

/// <summary>Variant net8: the self-contained .NET 8 publish, run through its apphost.</summary>
[Collection(Net8AppCollection.Name)]
public sealed class Net8RuntimeTests(RunningAppOnNet8 app)
{
    static string Folder => Path.GetDirectoryName(RunningApp.Net8AppHost)!;

    [Fact]
    public void LoadedLine_ReportsTheNet8RuntimePackThatRuns()
    {
        var loaded = LoadedLine.Of(app);
        Assert.StartsWith("8.0.", loaded["runtime_version"]);
        Assert.Equal(LoadedLine.IncludedRuntime(Folder), loaded["runtime_version"]);
        Assert.Equal(".NET " + loaded["runtime_version"], loaded["runtime"]);
        Assert.Equal(Folder, loaded["runtime_dir"]);
        Assert.Equal("true", loaded["self_contained"]);
        Assert.Equal(loaded["runtime_version"], loaded["aspnetcore"]);
    }

    [Fact]
    public void RuntimeSettings_AreTheDefaultBuilds()
    {
        var net8 = LoadedLine.ConfigProperties(Folder).ToString();
        var net10 = LoadedLine.ConfigProperties(Path.GetDirectoryName(RunningApp.PublishedApp)!).ToString();
        Assert.Equal(net10, net8);
        var loaded = LoadedLine.Of(app);
        var server = LoadedLine.OnSeveralProcessors(loaded) ? "true" : "false";
        Assert.Equal((server, "1", server, "true"),
            (loaded["server_gc"], loaded["gc_dynamic_adaptation_mode"], loaded["gc_datas"], loaded["tiered_pgo"]));
    }

    [Fact]
    public async Task Rest_SameBytes()
    {
        var reply = await Reply.Get(app.Http, "/rest/user/1/comment");
        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal("""{"id":1,"threadId":1,"userId":1,"body":"praesentium cena alii","dateMade":"2021-03-04","dateLastUpdated":"2021-08-14","user":{"id":1,"name":"Aaliyah.Bosco","email":"Clarabelle.Osinski55@hotmail.com","phone":"893-788-0018 x04956"}}""", reply.Body);
    }

    [Fact]
    public async Task GraphQL_BatchesUsersInOneStatement()
    {
        Reply? reply = null;
        var selects = await ServerCounters.SelectsDuring(async () =>
            reply = await Reply.GraphQL(app.Http, new { query = "{ commentsByLimit(limit: 50) { id user { id } } }" }));
        Assert.Equal(HttpStatusCode.OK, reply!.Status);
        Assert.Equal(2, selects);
    }
}
