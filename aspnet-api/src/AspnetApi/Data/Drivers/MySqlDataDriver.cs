using System.Data.Common;
using MySql.Data.MySqlClient;

namespace AspnetApi.Data.Drivers;

/// <summary>Oracle's MySQL Connector/NET (MySql.Data): the driver the study ran; the `mysql-data` variant.</summary>
public sealed class MySqlDataDriver : DatabaseDriver
{
    public const string Id = "mysql-data";

    public override string Name => "MySql.Data";

    protected override DbProviderFactory Factory => MySqlClientFactory.Instance;

    protected override IReadOnlyDictionary<string, object> DriverSettings { get; } = new Dictionary<string, object>
    {
        ["SSL Mode"] = "Disabled",
    };

    public override bool IsUnreachable(Exception error)
    {
        for (var e = error; e is not null; e = e.InnerException)
            if (e is MySqlException { Number: (int)MySqlErrorCode.UnableToConnectToHost })
                return true;
        return IsTransportFailure(error);
    }

    public override void ForgetConnections() => MySqlConnection.ClearAllPools();
}
