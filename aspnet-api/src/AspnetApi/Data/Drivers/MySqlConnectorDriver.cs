using System.Data.Common;
using MySqlConnector;

namespace AspnetApi.Data.Drivers;

/// <summary>MySqlConnector: the default driver, truly asynchronous I/O.</summary>
public sealed class MySqlConnectorDriver : DatabaseDriver
{
    public const string Id = "mysqlconnector";

    public override string Name => "MySqlConnector";

    protected override DbProviderFactory Factory => MySqlConnectorFactory.Instance;

    protected override IReadOnlyDictionary<string, object> DriverSettings { get; } = new Dictionary<string, object>
    {
        ["SSL Mode"] = "None",
        // mysql2's idleTimeout: idle pooled connections close after 60 s.
        ["Connection Idle Timeout"] = 60,
        // Commands are never prepared: the text protocol, one Com_select each, as pool.query.
        ["Ignore Prepare"] = true,
    };

    public override bool IsUnreachable(Exception error)
    {
        for (var e = error; e is not null; e = e.InnerException)
            if (e is MySqlException { ErrorCode: MySqlErrorCode.UnableToConnectToHost or MySqlErrorCode.CommandTimeoutExpired })
                return true;
        return IsTransportFailure(error);
    }

    public override void ForgetConnections() => MySqlConnection.ClearAllPools();
}
