using MySqlConnector;

namespace Api;

/// <summary>The contract's pool, the same on every implementation: at most 100 connections,
/// opened lazily, none reset on return, the text protocol (never prepared statements).</summary>
public static class Database
{
    public static MySqlDataSource FromEnvironment()
    {
        static string Env(string name, string fallback) =>
            Environment.GetEnvironmentVariable(name) is { Length: > 0 } value ? value : fallback;
        var settings = new MySqlConnectionStringBuilder
        {
            Server = Env("DB_HOST", "127.0.0.1"),
            Port = uint.Parse(Env("DB_PORT", "3307")),
            Database = Env("DB_NAME", "forum"),
            UserID = Env("DB_USER", "forum_api"),
            Password = Env("DB_PASSWORD", "forum_api"),
            CharacterSet = "utf8mb4",
            Pooling = true,
            MaximumPoolSize = 100,
            MinimumPoolSize = 0,
            ConnectionReset = false,
            IgnorePrepare = true,
            ConnectionTimeout = 60,
            SslMode = MySqlSslMode.None,
        };
        return new MySqlDataSource(settings.ConnectionString);
    }
}
