using System.Globalization;
using System.Reflection;
using System.Runtime;
using System.Runtime.InteropServices;
using System.Text.Json;
using AspnetApi.Data;
using AspnetApi.Http;

namespace AspnetApi;

/// <summary>
/// One start-up line, `testbed-loaded {json}`, naming the runtime and the libraries this process
/// actually loaded, which the testbed copies into each run's results: the versions measured are
/// read from the process, not from the manifest.
/// </summary>
public static class LoadedReport
{
    public static void Print(DatabaseDriver driver, ApiStyle apiStyle)
    {
        var loaded = new Dictionary<string, string>
        {
            // The runtime that really runs: the shared one for `dotnet AspnetApi.dll`, the
            // published runtime pack for the self-contained variants (net8, net10).
            ["runtime"] = RuntimeInformation.FrameworkDescription,
            ["runtime_version"] = Environment.Version.ToString(),
            ["runtime_dir"] = RuntimeDirectory,
            ["self_contained"] = (RuntimeDirectory == Path.TrimEndingDirectorySeparator(AppContext.BaseDirectory))
                .ToString().ToLowerInvariant(),
            ["api_style"] = apiStyle.Name(),
            ["aspnetcore"] = Version(typeof(WebApplication).Assembly),
            ["driver"] = driver.Name,
            ["driver_version"] = driver.Version,
            ["graphql"] = Version(typeof(global::GraphQL.DocumentExecuter).Assembly),
            // From the runtimeconfig the process read: the same in every variant (README, Variants).
            ["tiered_pgo"] = AppContext.GetData("System.Runtime.TieredPGO")?.ToString() ?? "unset",
        };
        foreach (var (key, value) in GarbageCollector())
            loaded[key] = value;
        Console.WriteLine("testbed-loaded " + JsonSerializer.Serialize(loaded));
    }

    /// <summary>
    /// The GC as the runtime runs it, asked of the GC itself: a DOTNET_* variable overrides the
    /// runtimeconfig.json that AppContext reports, so AppContext alone could claim a setting that is
    /// not in force.
    /// </summary>
    static Dictionary<string, string> GarbageCollector()
    {
        var gc = GC.GetConfigurationVariables();
        string Read(string key) => gc.TryGetValue(key, out var value) ? Convert.ToString(value, CultureInfo.InvariantCulture)! : "unset";
        var server = GCSettings.IsServerGC;
        var adaptation = Read("GCDynamicAdaptationMode");
        var hardLimit = gc.TryGetValue("GCHeapHardLimit", out var limit) ? Convert.ToUInt64(limit) : 0;
        return new()
        {
            // The processors the runtime sees (affinity and CPU quota): on one it runs Workstation GC
            // whatever the settings say (README, "The GC is Workstation GC").
            ["processor_count"] = Environment.ProcessorCount.ToString(CultureInfo.InvariantCulture),
            ["server_gc"] = Flag(server),
            ["gc_mode"] = server ? "server" : "workstation",
            ["concurrent_gc"] = Read("ConcurrentGC").ToLowerInvariant(),
            ["gc_dynamic_adaptation_mode"] = adaptation,
            // DATAS adapts the number of Server GC heaps to the load; Workstation GC has one heap
            // whatever the mode says.
            ["gc_datas"] = Flag(server && adaptation == "1"),
            // At start-up: under DATAS the count then follows the load (up to one per core).
            ["gc_heap_count"] = Read("HeapCount"),
            ["gc_heap_hard_limit_mb"] = hardLimit == 0 ? "none" : (hardLimit / (1024 * 1024)).ToString(CultureInfo.InvariantCulture),
            ["gc_total_available_memory_mb"] = (GC.GetGCMemoryInfo().TotalAvailableMemoryBytes / (1024 * 1024)).ToString(CultureInfo.InvariantCulture),
        };
    }

    static string Flag(bool value) => value ? "true" : "false";

    /// <summary>Where System.Private.CoreLib was loaded from: the app's own folder when self-contained.</summary>
    static string RuntimeDirectory => Path.GetDirectoryName(typeof(object).Assembly.Location)!;

    static string Version(Assembly assembly) =>
        assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0]
        ?? assembly.GetName().Version!.ToString();
}
