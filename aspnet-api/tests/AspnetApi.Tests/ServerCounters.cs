using MySqlConnector;

namespace AspnetApi.Tests;

/// <summary>
/// How many SELECTs the server ran, or connections it accepted, while an action did: the
/// server-wide Com_select or Connections counter, read before and after. Others may share the
/// server, so a count is taken up to three times and the smallest kept: a neighbour can only add
/// statements or connections, never remove the app's.
/// </summary>
public static class ServerCounters
{
    static string ConnectionString => new MySqlConnectionStringBuilder
    {
        Server = Env("DB_HOST", "127.0.0.1"),
        Port = uint.Parse(Env("DB_PORT", "3307")),
        UserID = Env("DB_USER", "forum_api"),
        Password = Env("DB_PASSWORD", "forum_api"),
        Database = Env("DB_NAME", "forum"),
        SslMode = MySqlSslMode.None,
        Pooling = false,
    }.ConnectionString;

    public static Task<long> SelectsDuring(Func<Task> action) => CountDuring("Com_select", action);

    /// <summary>Connections opened to the server, this counter's own reading connection excluded.</summary>
    public static Task<long> ConnectionsDuring(Func<Task> action) => CountDuring("Connections", action);

    static async Task<long> CountDuring(string counter, Func<Task> action)
    {
        var fewest = long.MaxValue;
        for (var attempt = 0; attempt < 3 && fewest > 0; attempt++)
        {
            // Reading Com_select is itself a statement on this connection, not on the app's.
            await using var connection = new MySqlConnection(ConnectionString);
            await connection.OpenAsync();
            var before = await Read(connection, counter);
            await action();
            var after = await Read(connection, counter);
            fewest = Math.Min(fewest, after - before);
        }
        return fewest;
    }

    static async Task<long> Read(MySqlConnection connection, string counter)
    {
        await using var command = new MySqlCommand($"SHOW GLOBAL STATUS LIKE '{counter}'", connection);
        await using var reader = await command.ExecuteReaderAsync();
        await reader.ReadAsync();
        return long.Parse(reader.GetString(1));
    }

    static string Env(string name, string fallback) =>
        Environment.GetEnvironmentVariable(name) is { Length: > 0 } value ? value : fallback;
}
