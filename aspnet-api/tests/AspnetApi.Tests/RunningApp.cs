using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Reflection;
using System.Text;
using System.Text.Json;

[assembly: CollectionBehavior(DisableTestParallelization = true)]

namespace AspnetApi.Tests;

/// <summary>
/// The published app (bin/publish, the benchmarked binary) as a real process on a free port,
/// talking to the real database named by DB_* (the app's own defaults are the testbed's managed
/// server). One process serves every test of a collection.
/// </summary>
public class RunningApp : IAsyncLifetime
{
    public static string RepoRoot => Path.GetFullPath(Metadata("RepoRoot"));

    public HttpClient Http { get; private set; } = null!;

    Process? process;
    readonly StringBuilder output = new();

    /// <summary>Environment beyond DB_* and PORT: a variant's, or a test's.</summary>
    protected virtual IReadOnlyDictionary<string, string> Environment => new Dictionary<string, string>();

    /// <summary>Where the tests reach the app: loopback, where it listens unless BIND_ADDRESS says otherwise.</summary>
    protected virtual string Host => "127.0.0.1";

    /// <summary>What is started: `dotnet bin/publish/AspnetApi.dll`, or a variant's apphost.</summary>
    protected virtual (string Program, string[] Arguments) Command => ("dotnet", [PublishedApp]);

    /// <summary>The framework-dependent build (framework.json's build).</summary>
    public static string PublishedApp => Path.GetFullPath(Metadata("AppDll"));

    /// <summary>The self-contained .NET 8 build (variant net8's build), started through its apphost.</summary>
    public static string Net8AppHost => Path.GetFullPath(Metadata("Net8AppHost"));

    public async Task InitializeAsync()
    {
        var (program, arguments) = Command;
        var app = program == "dotnet" ? arguments[0] : program;
        if (!File.Exists(app))
            throw new InvalidOperationException($"{app} is missing: publish the app first (see framework.json's build).");
        var port = FreePort();
        var start = new ProcessStartInfo(program, arguments)
        {
            WorkingDirectory = Path.GetDirectoryName(app)!,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.Environment["PORT"] = port.ToString();
        // Loopback, the app's default, whatever the environment running the tests says.
        start.Environment.Remove("BIND_ADDRESS");
        foreach (var (name, value) in Environment)
            start.Environment[name] = value;
        process = Process.Start(start)!;
        process.OutputDataReceived += (_, line) => Keep(line.Data);
        process.ErrorDataReceived += (_, line) => Keep(line.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        Http = new HttpClient { BaseAddress = new Uri($"http://{Host}:{port}") };
        await WaitUntilReady();
    }

    public Task DisposeAsync()
    {
        Http.Dispose();
        if (process is { HasExited: false })
        {
            process.Kill();
            process.WaitForExit();
        }
        process?.Dispose();
        return Task.CompletedTask;
    }

    /// <summary>What the app printed so far: startup lines, warnings and errors only.</summary>
    public string Output
    {
        get { lock (output) return output.ToString(); }
    }

    void Keep(string? line)
    {
        if (line is null) return;
        lock (output) output.AppendLine(line);
    }

    async Task WaitUntilReady()
    {
        var deadline = DateTime.UtcNow.AddSeconds(60);
        while (true)
        {
            if (process!.HasExited)
                throw new InvalidOperationException($"the app exited with {process.ExitCode}:\n{Output}");
            try
            {
                using var response = await Http.GetAsync("/healthz");
                if (response.StatusCode == HttpStatusCode.OK) return;
            }
            catch (HttpRequestException)
            {
                // not listening yet
            }
            if (DateTime.UtcNow > deadline)
                throw new TimeoutException($"the app did not become ready (is the database up?):\n{Output}");
            await Task.Delay(200);
        }
    }

    static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    static string Metadata(string key) =>
        typeof(RunningApp).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == key).Value!;
}

/// <summary>The same app on the study's driver: the `mysql-data` variant of framework.json.</summary>
public sealed class RunningAppOnMySqlData : RunningApp
{
    protected override IReadOnlyDictionary<string, string> Environment =>
        new Dictionary<string, string> { ["DB_DRIVER"] = "mysql-data" };
}

/// <summary>The same build with MVC controllers: the `mvc` variant of framework.json.</summary>
public sealed class RunningAppWithControllers : RunningApp
{
    protected override IReadOnlyDictionary<string, string> Environment =>
        new Dictionary<string, string> { ["API_STYLE"] = "controllers" };
}

/// <summary>
/// The `no-datas` variant with the environment its framework.json entry gives it, read from that
/// file, so that the tests check the variant as the testbed runs it.
/// </summary>
public sealed class RunningAppWithoutDatas : RunningApp
{
    protected override IReadOnlyDictionary<string, string> Environment => VariantEnvironment("no-datas");

    public static Dictionary<string, string> VariantEnvironment(string variant)
    {
        using var framework = JsonDocument.Parse(File.ReadAllText(Path.Combine(RepoRoot, "aspnet-api", "framework.json")));
        var entry = framework.RootElement.GetProperty("variants").EnumerateArray()
            .Single(v => v.GetProperty("name").GetString() == variant);
        return entry.GetProperty("env").EnumerateObject().ToDictionary(p => p.Name, p => p.Value.GetString()!);
    }
}

/// <summary>The self-contained .NET 8 publish through its apphost: the `net8` variant.</summary>
public sealed class RunningAppOnNet8 : RunningApp
{
    protected override (string Program, string[] Arguments) Command => (Net8AppHost, []);
}

[CollectionDefinition(Name)]
public sealed class AppCollection : ICollectionFixture<RunningApp>
{
    public const string Name = "app";
}

[CollectionDefinition(Name)]
public sealed class MySqlDataAppCollection : ICollectionFixture<RunningAppOnMySqlData>
{
    public const string Name = "app on MySql.Data";
}

[CollectionDefinition(Name)]
public sealed class ControllersAppCollection : ICollectionFixture<RunningAppWithControllers>
{
    public const string Name = "app with MVC controllers";
}

[CollectionDefinition(Name)]
public sealed class NoDatasAppCollection : ICollectionFixture<RunningAppWithoutDatas>
{
    public const string Name = "app without DATAS";
}

[CollectionDefinition(Name)]
public sealed class Net8AppCollection : ICollectionFixture<RunningAppOnNet8>
{
    public const string Name = "app on .NET 8";
}
