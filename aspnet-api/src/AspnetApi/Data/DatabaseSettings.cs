namespace AspnetApi.Data;

/// <summary>Where the database is (DB_* variables, defaulting to the testbed's managed server).</summary>
public record DatabaseSettings(string Host, uint Port, string Name, string User, string Password)
{
    /// <summary>Same as mysql2's connectionLimit on the Express side.</summary>
    public const int PoolSize = 100;

    public static DatabaseSettings FromEnvironment()
    {
        static string Env(string name, string fallback) =>
            Environment.GetEnvironmentVariable(name) is { Length: > 0 } value ? value : fallback;

        var port = Env("DB_PORT", "3307");
        if (!uint.TryParse(port, out var portNumber) || portNumber is 0 or > 65535)
            throw new BadSettingException($"DB_PORT must be a TCP port number, not '{port}'.");
        return new DatabaseSettings(Env("DB_HOST", "127.0.0.1"), portNumber, Env("DB_NAME", "forum"),
            Env("DB_USER", "forum_api"), Env("DB_PASSWORD", "forum_api"));
    }
}
