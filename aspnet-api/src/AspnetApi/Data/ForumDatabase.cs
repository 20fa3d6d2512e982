using System.Data.Common;
using System.Globalization;
using System.Text;

namespace AspnetApi.Data;

/// <summary>
/// All SQL the API runs, word for word the shared contract's text (express-api/data.js sends the
/// same). Commands are parameterized but never prepared, so they go over the text protocol and the
/// server counts one Com_select each, as with mysql2's pool.query on the Express side.
/// </summary>
public sealed class ForumDatabase(DatabaseDriver driver, DatabaseSettings settings) : IDisposable
{
    DbDataSource dataSource = driver.CreateDataSource(settings);

    const string CommentByIdSql =
        "SELECT comment_id, thread_id, user_id, body, datemade, datelastupdated FROM comment WHERE comment_id = ?";
    const string CommentsByLimitSql =
        "SELECT comment_id, thread_id, user_id, body, datemade, datelastupdated FROM comment ORDER BY comment_id LIMIT ?";
    const string FirstUserCommentSql =
        "SELECT c.comment_id, c.thread_id, c.user_id, c.body, c.datemade, c.datelastupdated, u.name, u.email, u.phone FROM comment c JOIN user u ON u.user_id = c.user_id WHERE c.user_id = ? ORDER BY c.comment_id LIMIT 1";
    const string UserCommentsSql =
        "SELECT c.comment_id, c.thread_id, c.user_id, c.body, c.datemade, c.datelastupdated, u.name, u.email, u.phone FROM comment c JOIN user u ON u.user_id = c.user_id WHERE c.user_id = ? ORDER BY c.comment_id LIMIT ?";
    const string UsersByIdsSql = "SELECT user_id, name, email, phone FROM user WHERE user_id IN ";
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

    /// <summary>One statement for a request's batch of users; ids ascending, as express-api sends them.</summary>
    public async Task<Dictionary<int, User>> UsersByIds(IReadOnlyCollection<int> ids)
    {
        var sorted = ids.Order().ToArray();
        var sql = new StringBuilder(UsersByIdsSql).Append('(')
            .AppendJoin(", ", Enumerable.Repeat("?", sorted.Length)).Append(')').ToString();
        var users = await Query(sql, ReadUser, sorted);
        return users.ToDictionary(user => user.Id);
    }

    public async Task Ping() => await Query(PingSql, row => row.GetInt64(0));

    public bool IsUnreachable(Exception error) => driver.IsUnreachable(error);

    /// <summary>
    /// Drop every pooled connection after an outage so that none is reused dead: with no reset on
    /// return a dead one is only found out when used, one failed request each. A data source keeps
    /// a pool of its own that the drivers' ClearAllPools does not reach, so it is replaced by a new
    /// one, with an empty pool; requests still holding a connection of the old one fail as they would.
    /// </summary>
    public void ForgetConnections()
    {
        var stale = Interlocked.Exchange(ref dataSource, driver.CreateDataSource(settings));
        driver.ForgetConnections();
        stale.Dispose();
    }

    public void Dispose() => dataSource.Dispose();

    async Task<List<T>> Query<T>(string sql, Func<DbDataReader, T> read, params int[] parameters)
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

    static User ReadUser(DbDataReader row) => new(
        row.GetInt32(0), row.GetString(1), row.GetString(2), row.GetString(3));

    static string? Date(DbDataReader row, int column) =>
        row.IsDBNull(column) ? null : row.GetDateTime(column).ToString("yyyy-MM-dd", CultureInfo.InvariantCulture);
}

public static class ForumDatabaseRegistration
{
    /// <summary>One data source (one pool) for the process, as one mysql2 pool on the Express side.</summary>
    public static IServiceCollection AddForumData(this IServiceCollection services, DatabaseSettings settings,
        DatabaseDriver driver)
    {
        services.AddSingleton(driver);
        services.AddSingleton(settings);
        services.AddSingleton<ForumDatabase>();
        return services;
    }
}
