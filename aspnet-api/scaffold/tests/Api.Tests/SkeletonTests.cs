using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Reflection;

namespace Api.Tests;

/// <summary>
/// The parts every implementation needs whatever its routes: the published app starts, is ready
/// once the database answers, and an unknown path is the contract's 404 problem. Add a test beside
/// each route you write; `./testbed verify --framework {{NAME}}` checks the rest.
/// </summary>
public sealed class SkeletonTests : IAsyncLifetime
{
    static readonly string App = Path.GetFullPath(typeof(SkeletonTests).Assembly
        .GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == "AppDll").Value!);

    Process process = null!;
    readonly HttpClient http = new();

    public async Task InitializeAsync()
    {
        var port = FreePort();
        var start = new ProcessStartInfo("dotnet", [App]) { RedirectStandardOutput = true, UseShellExecute = false };
        start.Environment["PORT"] = port.ToString();
        start.Environment.Remove("BIND_ADDRESS");
        process = Process.Start(start)!;
        http.BaseAddress = new Uri($"http://127.0.0.1:{port}");
        for (var i = 0; i < 300; i++)
        {
            try
            {
                if ((await http.GetAsync("/healthz")).StatusCode == HttpStatusCode.OK) return;
            }
            catch (HttpRequestException)
            {
                // not listening yet
            }
            await Task.Delay(100);
        }
        throw new InvalidOperationException($"{App} did not answer /healthz with 200 within 30 s");
    }

    public Task DisposeAsync()
    {
        process.Kill();
        process.WaitForExit();
        return Task.CompletedTask;
    }

    [Fact]
    public async Task Healthz_IsOkOnceTheDatabaseAnswers()
    {
        var response = await http.GetAsync("/healthz");
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("""{"status":"ok"}""", await response.Content.ReadAsStringAsync());
    }

    [Fact]
    public async Task AnUnknownPath_IsTheNotFoundProblem()
    {
        var response = await http.GetAsync("/no/such/path");
        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.Equal("application/problem+json; charset=utf-8", response.Content.Headers.ContentType!.ToString());
        Assert.Equal("""{"type":"about:blank","title":"Not Found","status":404,"detail":"no such endpoint"}""",
            await response.Content.ReadAsStringAsync());
    }

    static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
