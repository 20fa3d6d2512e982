using System.Data.Common;
using MySql.Data.MySqlClient;

namespace AspnetApi.Data.Drivers;

/// <summary>Oracle's MySQL Connector/NET (MySql.Data): the driver the study ran; the `mysql-data` variant.</summary>
public sealed class MySqlDataDriver : DatabaseDriver
{
    public const string Id = "mysql-data";

    public override string Name => "MySql.Data";

    protected override DbProviderFactory Factory => MySqlClientFactory.Instance;

    public override string ConnectionString(DatabaseSettings settings) => new MySqlConnectionStringBuilder
    {
        Server = settings.Host,
        Port = settings.Port,
        Database = settings.Name,
        UserID = settings.User,
        Password = settings.Password,
        CharacterSet = "utf8mb4",
        // The same pool as the default driver's: 100, lazy, no reset on return.
        Pooling = true,
        MaximumPoolSize = (uint)DatabaseSettings.PoolSize,
        MinimumPoolSize = 0,
        ConnectionReset = false,
        SslMode = MySqlSslMode.Disabled,
        ConnectionTimeout = 5,
    }.ConnectionString;

    public override bool IsUnreachable(Exception error)
    {
        for (var e = error; e is not null; e = e.InnerException)
            if (e is MySqlException { Number: (int)MySqlErrorCode.UnableToConnectToHost })
                return true;
        return IsTransportFailure(error);
    }

    public override void ForgetConnections() => MySqlConnection.ClearAllPools();
}
