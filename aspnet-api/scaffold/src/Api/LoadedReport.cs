using System.Reflection;
using System.Runtime.InteropServices;
using System.Text.Json;
using MySqlConnector;

namespace Api;

/// <summary>The start-up line `testbed-loaded {json}`: what this process really loaded, so that
/// every run records what served it. Add each library you load.</summary>
public static class LoadedReport
{
    public static void Print()
    {
        var driver = typeof(MySqlConnection).Assembly;
        var report = new Dictionary<string, object>
        {
            ["runtime"] = RuntimeInformation.FrameworkDescription,
            ["runtime_path"] = RuntimeEnvironment.GetRuntimeDirectory(),
            ["driver"] = "MySqlConnector",
            ["driver_version"] = driver.GetCustomAttribute<AssemblyInformationalVersionAttribute>()!
                .InformationalVersion.Split('+')[0],
            ["processes"] = 1,
            ["pool_size_per_process"] = 100,
        };
        Console.WriteLine($"testbed-loaded {JsonSerializer.Serialize(report)}");
    }
}
