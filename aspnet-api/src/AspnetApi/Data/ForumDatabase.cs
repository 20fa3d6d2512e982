using System.Data.Common;
using System.Globalization;
using System.Net.Sockets;
using MySql.Data.MySqlClient;

namespace AspnetApi.Data;

/// <summary>
/// All SQL the API runs, word for word the shared contract's text. Commands are parameterized but
/// never prepared, so they go over the text protocol and the server counts one Com_select each,
/// as with mysql2's pool.query on the Express side.
/// </summary>
public sealed class ForumDatabase(DbDataSource dataSource)
{
    /// <summary>
    /// MySql.Data 8.0.16 only looks asynchronous: its *Async methods block the calling thread, and
    /// so does waiting for a free pooled connection. Queueing here, asynchronously, for one of the
    /// pool's connections keeps at most PoolSize threads blocked in the driver, and lets the rest
    /// wait without a thread, like requests queued in mysql2's pool.
    /// </summary>
    readonly SemaphoreSlim connections = new(DatabaseSettings.PoolSize, DatabaseSettings.PoolSize);

    const string CommentByIdSql =
        "SELECT comment_id, thread_id, user_id, body, datemade, datelastupdated FROM comment WHERE comment_id = ?";
    const string CommentsByLimitSql =
        "SELECT comment_id, thread_id, user_id, body, datemade, datelastupdated FROM comment ORDER BY comment_id LIMIT ?";
    const string FirstUserCommentSql =
        "SELECT c.comment_id, c.thread_id, c.user_id, c.body, c.datemade, c.datelastupdated, u.name, u.email, u.phone FROM comment c JOIN user u ON u.user_id = c.user_id WHERE c.user_id = ? ORDER BY c.comment_id LIMIT 1";
    const string UserCommentsSql =
        "SELECT c.comment_id, c.thread_id, c.user_id, c.body, c.datemade, c.datelastupdated, u.name, u.email, u.phone FROM comment c JOIN user u ON u.user_id = c.user_id WHERE c.user_id = ? ORDER BY c.comment_id LIMIT ?";
    const string PingSql = "SELECT 1";

    public async Task<Comment?> CommentById(int id)
    {
        var rows = await Query(CommentByIdSql, ReadComment, id);
        return rows.Count == 0 ? null : rows[0];
    }

    public Task<List<Comment>> CommentsByLimit(int limit) =>
        Query(CommentsByLimitSql, ReadComment, limit);

    public async Task<CommentWithUser?> FirstCommentOfUser(int userId)
    {
        var rows = await Query(FirstUserCommentSql, ReadCommentWithUser, userId);
        return rows.Count == 0 ? null : rows[0];
    }

    public Task<List<CommentWithUser>> CommentsOfUser(int userId, int limit) =>
        Query(UserCommentsSql, ReadCommentWithUser, userId, limit);

    public async Task Ping() => await Query(PingSql, row => row.GetInt64(0));

    async Task<List<T>> Query<T>(string sql, Func<DbDataReader, T> read, params int[] parameters)
    {
        await connections.WaitAsync();
        try
        {
            return await QueryOnPooledConnection(sql, read, parameters);
        }
        finally
        {
            connections.Release();
        }
    }

    async Task<List<T>> QueryOnPooledConnection<T>(string sql, Func<DbDataReader, T> read, int[] parameters)
    {
        await using var connection = await dataSource.OpenConnectionAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = sql;
        foreach (var value in parameters)
        {
            var parameter = command.CreateParameter();
            parameter.Value = value;
            command.Parameters.Add(parameter);
        }
        await using var reader = await command.ExecuteReaderAsync();
        var rows = new List<T>();
        while (await reader.ReadAsync())
            rows.Add(read(reader));
        return rows;
    }

    static Comment ReadComment(DbDataReader row) => new(
        row.GetInt32(0), row.GetInt32(1), row.GetInt32(2), row.GetString(3), Date(row, 4), Date(row, 5));

    static CommentWithUser ReadCommentWithUser(DbDataReader row) => new(
        row.GetInt32(0), row.GetInt32(1), row.GetInt32(2), row.GetString(3), Date(row, 4), Date(row, 5),
        new User(row.GetInt32(2), row.GetString(6), row.GetString(7), row.GetString(8)));

    static string? Date(DbDataReader row, int column) =>
        row.IsDBNull(column) ? null : row.GetDateTime(column).ToString("yyyy-MM-dd", CultureInfo.InvariantCulture);

    /// <summary>
    /// True when the failure means "no database to talk to" (refused, reset, timed out, gone away)
    /// rather than a bug: those become 503 instead of 500.
    /// </summary>
    public static bool IsUnreachable(Exception error)
    {
        for (var e = error; e is not null; e = e.InnerException)
        {
            if (e is SocketException or IOException or TimeoutException or EndOfStreamException)
                return true;
            if (e is MySqlException { Number: (int)MySqlErrorCode.UnableToConnectToHost })
                return true;
        }
        return false;
    }

    /// <summary>Drop pooled connections after an outage so that none of them is reused dead.</summary>
    public static void ForgetConnections() => MySqlConnection.ClearAllPools();
}

public static class ForumDatabaseRegistration
{
    /// <summary>One data source (one pool) for the process, as one mysql2 pool on the Express side.</summary>
    public static IServiceCollection AddForumData(this IServiceCollection services, DatabaseSettings settings)
    {
        services.AddSingleton<DbDataSource>(MySqlClientFactory.Instance.CreateDataSource(settings.ConnectionString()));
        services.AddSingleton<ForumDatabase>();
        return services;
    }
}
