using System.Reflection;
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
            ["server_gc"] = System.Runtime.GCSettings.IsServerGC.ToString().ToLowerInvariant(),
            // From the runtimeconfig the process read: the same in every variant (README, Variants).
            ["gc_dynamic_adaptation_mode"] = AppContext.GetData("System.GC.DynamicAdaptationMode")?.ToString() ?? "unset",
            ["tiered_pgo"] = AppContext.GetData("System.Runtime.TieredPGO")?.ToString() ?? "unset",
        };
        Console.WriteLine("testbed-loaded " + JsonSerializer.Serialize(loaded));
    }

    /// <summary>Where System.Private.CoreLib was loaded from: the app's own folder when self-contained.</summary>
    static string RuntimeDirectory => Path.GetDirectoryName(typeof(object).Assembly.Location)!;

    static string Version(Assembly assembly) =>
        assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0]
        ?? assembly.GetName().Version!.ToString();
}
