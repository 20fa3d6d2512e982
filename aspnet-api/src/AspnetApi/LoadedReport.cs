using System.Reflection;
using System.Runtime.InteropServices;
using System.Text.Json;
using AspnetApi.Data;

namespace AspnetApi;

/// <summary>
/// One start-up line, `testbed-loaded {json}`, naming the runtime and the libraries this process
/// actually loaded, which the testbed copies into each run's results: the versions measured are
/// read from the process, not from the manifest.
/// </summary>
public static class LoadedReport
{
    public static void Print(DatabaseDriver driver)
    {
        var loaded = new Dictionary<string, string>
        {
            ["runtime"] = RuntimeInformation.FrameworkDescription,
            ["aspnetcore"] = Version(typeof(WebApplication).Assembly),
            ["driver"] = driver.Name,
            ["driver_version"] = driver.Version,
            ["graphql"] = Version(typeof(global::GraphQL.DocumentExecuter).Assembly),
            ["server_gc"] = System.Runtime.GCSettings.IsServerGC.ToString().ToLowerInvariant(),
        };
        Console.WriteLine("testbed-loaded " + JsonSerializer.Serialize(loaded));
    }

    static string Version(Assembly assembly) =>
        assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0]
        ?? assembly.GetName().Version!.ToString();
}
