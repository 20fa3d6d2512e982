using System.Diagnostics;

namespace AspnetApi.Tests;

/// <summary>
/// A bad setting stops start-up with one line on stderr naming it, and status 1: no stack trace,
/// nothing on stdout (express-api's config.js does the same). The published app, as a run starts it.
/// </summary>
public sealed class BadSettingTests
{
    [Theory]
    [InlineData("API_STYLE", "mvc", "API_STYLE must be 'minimal' or 'controllers', not 'mvc'.")]
    [InlineData("DB_DRIVER", "oracle", "DB_DRIVER must be mysqlconnector (the default) or mysql-data, not 'oracle'.")]
    [InlineData("DB_PORT", "0", "DB_PORT must be a TCP port number, not '0'.")]
    [InlineData("PORT", "http", "PORT must be a TCP port number, not 'http'.")]
    [InlineData("GRAPHQL_MAX_DEPTH", "-1", "GRAPHQL_MAX_DEPTH must be a positive integer, not '-1'.")]
    public async Task ABadSetting_IsOneLineAndStatus1(string variable, string value, string message)
    {
        var start = new ProcessStartInfo("dotnet", [RunningApp.PublishedApp])
        {
            WorkingDirectory = Path.GetDirectoryName(RunningApp.PublishedApp)!,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.Environment["PORT"] = "5999";
        start.Environment[variable] = value;
        using var process = Process.Start(start)!;
        var stderr = process.StandardError.ReadToEndAsync();
        var stdout = await process.StandardOutput.ReadToEndAsync();
        await process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(60));
        Assert.Equal(1, process.ExitCode);
        Assert.Equal($"aspnet-api: {message}\n", await stderr);
        Assert.Equal("", stdout);
    }
}
