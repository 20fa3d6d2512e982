using System.Net;
using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace Api;

/// <summary>Kestrel as every implementation listens: PORT and BIND_ADDRESS, HTTP/1.1, no Server header.</summary>
public static class Server
{
    public const int KeepAliveSeconds = 130;

    public static void ConfigureServer(this WebApplicationBuilder builder)
    {
        var port = Setting("PORT", "{{PORT}}");
        var address = Setting("BIND_ADDRESS", "127.0.0.1");
        if (!int.TryParse(port, out var portNumber) || portNumber is < 1 or > 65535)
            Refuse("PORT", port);
        if (!IPAddress.TryParse(address, out var ip))
            Refuse("BIND_ADDRESS", address);
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.AddServerHeader = false;
            kestrel.Limits.MaxConcurrentConnections = null;
            kestrel.Limits.MaxRequestBodySize = 1_000_000;
            // Node's keep-alive is set to Kestrel's default: JMeter's connections stay open as long on every side.
            kestrel.Limits.KeepAliveTimeout = TimeSpan.FromSeconds(KeepAliveSeconds);
            kestrel.Listen(ip!, portNumber, listen => listen.Protocols = HttpProtocols.Http1);
        });
    }

    /// <summary>The contract's keep-alive headers, as Node sends them.</summary>
    public static void UseKeepAliveHeaders(this WebApplication app) => app.Use((context, next) =>
    {
        context.Response.Headers.Connection = "keep-alive";
        context.Response.Headers["Keep-Alive"] = $"timeout={KeepAliveSeconds}";
        return next(context);
    });

    static string Setting(string name, string fallback) =>
        Environment.GetEnvironmentVariable(name) is { Length: > 0 } value ? value : fallback;

    /// <summary>A bad setting is one line and status 1, never a stack trace.</summary>
    static void Refuse(string name, string text)
    {
        Console.Error.WriteLine($"{{NAME}}-api: {name} is not valid: '{text}'.");
        Environment.Exit(1);
    }
}
