namespace AspnetApi;

/// <summary>
/// A setting the app cannot start with (PORT, BIND_ADDRESS, DB_PORT, DB_DRIVER, API_STYLE,
/// GRAPHQL_MAX_*): its message names the variable, what it takes and what it got.
/// </summary>
public sealed class BadSettingException(string message) : Exception(message);

public static class BadSettings
{
    /// <summary>
    /// A bad setting ends the process with one line on stderr and status 1, as express-api's do,
    /// instead of the runtime's "Unhandled exception" and stack trace. The handler exits before
    /// the runtime prints anything; any other exception is left to the runtime as before.
    /// </summary>
    public static void ExitWithOneLine() =>
        AppDomain.CurrentDomain.UnhandledException += (_, unhandled) =>
        {
            if (unhandled.ExceptionObject is not BadSettingException bad)
                return;
            Console.Error.WriteLine($"aspnet-api: {bad.Message}");
            Environment.Exit(1);
        };
}
