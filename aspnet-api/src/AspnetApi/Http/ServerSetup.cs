using System.Net;
using System.Net.Sockets;
using System.Text.Encodings.Web;
using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace AspnetApi.Http;

/// <summary>Kestrel, logging and JSON: everything that shapes the bytes and the cost of a request.</summary>
public static class ServerSetup
{
    const int DefaultPort = 5000;

    public static void ConfigureServer(this WebApplicationBuilder builder)
    {
        var port = PortFromEnvironment();
        var address = AddressFromEnvironment();
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.AddServerHeader = false;
            kestrel.AllowSynchronousIO = false;
            // Node's http server has no connection cap either; JMeter opens up to 500.
            kestrel.Limits.MaxConcurrentConnections = null;
            kestrel.Limits.MaxConcurrentUpgradedConnections = null;
            kestrel.Limits.MaxRequestBodySize = 1_000_000;
            kestrel.Limits.KeepAliveTimeout = TimeSpan.FromSeconds(KeepAliveSeconds);
            kestrel.Limits.RequestHeadersTimeout = TimeSpan.FromSeconds(30);
            // Like express-api's `server.listen(port, address)`: that one address, plain HTTP/1.1 only.
            kestrel.Listen(address, port, listen => listen.Protocols = HttpProtocols.Http1);
        });
    }

    static int PortFromEnvironment()
    {
        var text = Environment.GetEnvironmentVariable("PORT");
        if (string.IsNullOrEmpty(text))
            return DefaultPort;
        if (int.TryParse(text, out var port) && port is > 0 and < 65536)
            return port;
        throw new BadSettingException($"PORT must be a TCP port number, not '{text}'.");
    }

    /// <summary>
    /// Loopback unless BIND_ADDRESS names another address: the testbed sets it when the load comes
    /// from other machines (0.0.0.0 is every IPv4 interface, :: every interface). The literals
    /// express-api takes (Node's net.isIP), no more: IPAddress.TryParse alone would also take
    /// "1", "10.1" or "010.0.0.1" (inet_aton's forms) and "[::1]", which Node refuses.
    /// </summary>
    static IPAddress AddressFromEnvironment()
    {
        var text = Environment.GetEnvironmentVariable("BIND_ADDRESS");
        if (string.IsNullOrEmpty(text))
            return IPAddress.Loopback;
        if (IPAddress.TryParse(text, out var address) && IsPlainLiteral(text, address))
            // Node binds ::ffff:a.b.c.d on a dual-stack socket, which only IPv4 clients of a.b.c.d
            // reach; Kestrel's IPv6 socket is IPv6-only and refuses it, so it listens on a.b.c.d.
            return address.IsIPv4MappedToIPv6 ? address.MapToIPv4() : address;
        throw new BadSettingException(
            $"BIND_ADDRESS must be an IP address such as 127.0.0.1 or 0.0.0.0, not '{text}'.");
    }

    /// <summary>
    /// Dotted decimal IPv4 exactly as written back, or IPv6 without brackets, port, spaces or an
    /// empty zone ("::1%").
    /// </summary>
    static bool IsPlainLiteral(string text, IPAddress address) => address.AddressFamily switch
    {
        AddressFamily.InterNetwork => address.ToString() == text,
        AddressFamily.InterNetworkV6 =>
            text.Contains(':') && !text.Contains('[') && text.Trim() == text && !text.EndsWith('%'),
        _ => false,
    };

    /// <summary>
    /// Node announces a persistent connection on every response (`Connection: keep-alive`,
    /// `Keep-Alive: timeout=130`); Kestrel keeps it open just as long but says nothing. Saying the
    /// same here makes both stacks send the same header set.
    /// </summary>
    public static void UseKeepAliveHeaders(this WebApplication app) =>
        app.Use((http, next) =>
        {
            if (!ClosesConnection(http.Request))
            {
                http.Response.Headers.Connection = "keep-alive";
                http.Response.Headers["Keep-Alive"] = KeepAliveValue;
            }
            return next(http);
        });

    const int KeepAliveSeconds = 130;
    static readonly string KeepAliveValue = $"timeout={KeepAliveSeconds}";

    static bool ClosesConnection(HttpRequest request) =>
        request.Protocol != "HTTP/1.1"
        || request.Headers.Connection.Any(v => v is not null && v.Contains("close", StringComparison.OrdinalIgnoreCase));

    /// <summary>Warnings and errors only: no per-request lines, as on the Express side.</summary>
    public static void ConfigureQuietLogging(this WebApplicationBuilder builder)
    {
        builder.Logging.ClearProviders();
        builder.Logging.AddSimpleConsole(console => console.SingleLine = true);
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        // Startup and shutdown lines only (the listening address), never on the request path.
        builder.Logging.AddFilter("Microsoft.Hosting.Lifetime", LogLevel.Information);
    }

    /// <summary>Compact camelCase JSON escaped like JavaScript's JSON.stringify.</summary>
    public static void ConfigureJson(this WebApplicationBuilder builder) =>
        builder.Services.ConfigureHttpJsonOptions(json =>
        {
            json.SerializerOptions.Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping;
            json.SerializerOptions.WriteIndented = false;
        });
}
