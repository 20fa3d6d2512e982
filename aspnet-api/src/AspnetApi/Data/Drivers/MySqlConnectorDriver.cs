using System.Data.Common;
using MySqlConnector;

namespace AspnetApi.Data.Drivers;

/// <summary>MySqlConnector: the default driver, truly asynchronous I/O.</summary>
public sealed class MySqlConnectorDriver : DatabaseDriver
{
    public const string Id = "mysqlconnector";

    public override string Name => "MySqlConnector";

    protected override DbProviderFactory Factory => MySqlConnectorFactory.Instance;

    public override string ConnectionString(DatabaseSettings settings) => new MySqlConnectionStringBuilder
    {
        Server = settings.Host,
        Port = settings.Port,
        Database = settings.Name,
        UserID = settings.User,
        Password = settings.Password,
        CharacterSet = "utf8mb4",
        // The contract's pool: 100 connections, opened lazily, not reset on return (mysql2's
        // resetOnRelease: false), never pinged when taken from the pool.
        Pooling = true,
        MaximumPoolSize = (uint)DatabaseSettings.PoolSize,
        MinimumPoolSize = 0,
        ConnectionReset = false,
        ConnectionIdleTimeout = 60,
        // mysql2 connects without TLS; so does this side, rather than negotiating it.
        SslMode = MySqlSslMode.None,
        ConnectionTimeout = 5,
        // Commands are never prepared: the text protocol, one Com_select each, as pool.query.
        IgnorePrepare = true,
    }.ConnectionString;

    public override bool IsUnreachable(Exception error)
    {
        for (var e = error; e is not null; e = e.InnerException)
            if (e is MySqlException { ErrorCode: MySqlErrorCode.UnableToConnectToHost or MySqlErrorCode.CommandTimeoutExpired })
                return true;
        return IsTransportFailure(error);
    }

    public override void ForgetConnections() => MySqlConnection.ClearAllPools();
}
