using System.Diagnostics;
using System.Net;
using System.Net.NetworkInformation;
using System.Net.Sockets;
using System.Text;

namespace AspnetApi.Tests;

/// <summary>
/// Where the app listens: loopback unless BIND_ADDRESS says otherwise (express-api does the same,
/// test/listen.test.js). The published app, and what the kernel says is listening (/proc/net/tcp{,6}).
/// </summary>
static class Listening
{
    /// <summary>Every local address a socket LISTENs on with this port, as the kernel reports it.</summary>
    public static List<string> On(int port)
    {
        var found = new List<string>();
        foreach (var file in new[] { "/proc/net/tcp", "/proc/net/tcp6" })
        {
            if (!File.Exists(file)) continue;
            foreach (var line in File.ReadAllLines(file).Skip(1))
            {
                var fields = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                var local = fields[1].Split(':');
                if (fields[3] == "0A" && Convert.ToInt32(local[1], 16) == port)
                    found.Add(ProcAddress(local[0]));
            }
        }
        return found;
    }

    /// <summary>/proc/net/tcp{,6} write each address as 32-bit words in host (little-endian) byte order.</summary>
    static string ProcAddress(string hex)
    {
        var bytes = Convert.FromHexString(hex);
        for (var word = 0; word < bytes.Length; word += 4)
            Array.Reverse(bytes, word, 4);
        return new IPAddress(bytes).ToString();
    }

    /// <summary>An IPv4 address of this machine other than loopback: what a remote load engine would reach.</summary>
    public static IPAddress? External => NetworkInterface.GetAllNetworkInterfaces()
        .Where(i => i.OperationalStatus == OperationalStatus.Up && i.NetworkInterfaceType != NetworkInterfaceType.Loopback)
        .SelectMany(i => i.GetIPProperties().UnicastAddresses)
        .Select(a => a.Address)
        .FirstOrDefault(a => a.AddressFamily == AddressFamily.InterNetwork && !IPAddress.IsLoopback(a));

    public static bool Connects(IPAddress address, int port)
    {
        using var client = new TcpClient(address.AddressFamily);
        try
        {
            client.Connect(address, port);
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }

    public static int Port(RunningApp app) => app.Http.BaseAddress!.Port;
}

/// <summary>BIND_ADDRESS=0.0.0.0: what docker-compose.yml sets, and the testbed for remote load engines.</summary>
public sealed class RunningAppOnEveryInterface : RunningApp
{
    protected override IReadOnlyDictionary<string, string> Environment =>
        new Dictionary<string, string> { ["BIND_ADDRESS"] = "0.0.0.0" };
}

/// <summary>BIND_ADDRESS=::1: IPv6 loopback only.</summary>
public sealed class RunningAppOnIPv6Loopback : RunningApp
{
    protected override IReadOnlyDictionary<string, string> Environment =>
        new Dictionary<string, string> { ["BIND_ADDRESS"] = "::1" };

    protected override string Host => "[::1]";
}

/// <summary>The default app: BIND_ADDRESS unset.</summary>
[Collection(AppCollection.Name)]
public sealed class DefaultListenAddressTests(RunningApp app)
{
    [Fact]
    public void ListensOnLoopbackOnly_AndSaysSo()
    {
        var port = Listening.Port(app);
        Assert.Contains($"Now listening on: http://127.0.0.1:{port}", app.Output);
        Assert.Equal(["127.0.0.1"], Listening.On(port));
        if (Listening.External is { } external)
            Assert.False(Listening.Connects(external, port), $"reachable on {external}");
    }

    [Fact]
    public async Task AnswersOnLoopback() =>
        Assert.Equal(HttpStatusCode.OK, (await app.Http.GetAsync("/healthz")).StatusCode);
}

public sealed class EveryInterfaceListenAddressTests(RunningAppOnEveryInterface app) : IClassFixture<RunningAppOnEveryInterface>
{
    [Fact]
    public async Task ListensOnEveryIPv4Interface()
    {
        var port = Listening.Port(app);
        Assert.Contains($"Now listening on: http://0.0.0.0:{port}", app.Output);
        Assert.Equal(["0.0.0.0"], Listening.On(port));
        Assert.Equal(HttpStatusCode.OK, (await app.Http.GetAsync("/healthz")).StatusCode);
        if (Listening.External is { } external)
            Assert.True(Listening.Connects(external, port), $"not reachable on {external}");
    }
}

public sealed class IPv6LoopbackListenAddressTests(RunningAppOnIPv6Loopback app) : IClassFixture<RunningAppOnIPv6Loopback>
{
    [Fact]
    public async Task ListensOnIPv6LoopbackOnly()
    {
        var port = Listening.Port(app);
        Assert.Equal(["::1"], Listening.On(port));
        Assert.Equal(HttpStatusCode.OK, (await app.Http.GetAsync("/healthz")).StatusCode);
        Assert.False(Listening.Connects(IPAddress.Loopback, port), "reachable on 127.0.0.1");
    }
}

/// <summary>Start-up that must fail: the published app run until it exits.</summary>
public sealed class BadListenAddressTests
{
    static (int ExitCode, string Output) RunUntilExit(string bindAddress)
    {
        var start = new ProcessStartInfo("dotnet", [RunningApp.PublishedApp])
        {
            WorkingDirectory = Path.GetDirectoryName(RunningApp.PublishedApp)!,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.Environment["PORT"] = "5999";
        start.Environment["BIND_ADDRESS"] = bindAddress;
        using var process = Process.Start(start)!;
        var output = new StringBuilder();
        process.OutputDataReceived += (_, line) => { lock (output) output.AppendLine(line.Data); };
        process.ErrorDataReceived += (_, line) => { lock (output) output.AppendLine(line.Data); };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        if (!process.WaitForExit(TimeSpan.FromSeconds(60)))
        {
            process.Kill();
            process.WaitForExit();
            Assert.Fail($"the app started with BIND_ADDRESS='{bindAddress}':\n{output}");
        }
        process.WaitForExit();
        lock (output) return (process.ExitCode, output.ToString());
    }

    // The same table as express-api's test/listen.test.js: what neither app takes.
    [Theory]
    [InlineData("x")]
    [InlineData("localhost")]
    [InlineData("1")]
    [InlineData("10.1")]
    [InlineData("010.0.0.1")]
    [InlineData("256.0.0.1")]
    [InlineData("1.2.3.4.5")]
    [InlineData("[::1]")]
    [InlineData("1::2::3")]
    [InlineData(" 127.0.0.1")]
    [InlineData("127.0.0.1:80")]
    [InlineData("0.0.0.0/0")]
    public void NotAnIPAddress_StopsStartUpWithTheMessage(string bindAddress)
    {
        var (exitCode, output) = RunUntilExit(bindAddress);
        Assert.NotEqual(0, exitCode);
        // As every bad setting is reported (BadSettingTests): one line, no stack trace.
        Assert.Equal(
            $"aspnet-api: BIND_ADDRESS must be an IP address such as 127.0.0.1 or 0.0.0.0, not '{bindAddress}'.",
            output.Trim());
        Assert.DoesNotContain("Now listening on", output);
    }

    // 203.0.113.0/24 is TEST-NET-3: no machine has it, as with a BIND_ADDRESS meant for another host.
    [Fact]
    public void AnAddressThisMachineDoesNotHave_StopsStartUp()
    {
        var (exitCode, output) = RunUntilExit("203.0.113.7");
        Assert.NotEqual(0, exitCode);
        // Kestrel's own report (EADDRNOTAVAIL), which, unlike express-api's line, does not name the address.
        Assert.Contains("Unhandled exception. System.Net.Sockets.SocketException (99): Cannot assign requested address", output);
        Assert.DoesNotContain("Now listening on", output);
    }
}
