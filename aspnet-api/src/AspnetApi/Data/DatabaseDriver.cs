using System.Data.Common;
using System.Reflection;
using AspnetApi.Data.Drivers;

namespace AspnetApi.Data;

/// <summary>
/// The ADO.NET provider behind the one <see cref="DbDataSource"/> the app queries through. Only
/// what differs between drivers lives here: the factory, the connection string keywords, which
/// failures mean "no database", and how to drop pooled connections after an outage.
/// </summary>
public abstract class DatabaseDriver
{
    public const string Variable = "DB_DRIVER";
    public const int PoolWaitSeconds = 60;

    public abstract string Name { get; }

    protected abstract DbProviderFactory Factory { get; }

    /// <summary>What only this driver needs said, beyond the settings every driver shares.</summary>
    protected abstract IReadOnlyDictionary<string, object> DriverSettings { get; }

    /// <summary>
    /// The contract's pool on either driver: 100 connections, opened lazily, not reset on return
    /// (mysql2's resetOnRelease: false); utf8mb4; no TLS, as mysql2 does not negotiate it.
    /// </summary>
    public string ConnectionString(DatabaseSettings settings)
    {
        var builder = Factory.CreateConnectionStringBuilder()!;
        builder["Server"] = settings.Host;
        builder["Port"] = settings.Port;
        builder["Database"] = settings.Name;
        builder["User ID"] = settings.User;
        builder["Password"] = settings.Password;
        builder["Character Set"] = "utf8mb4";
        builder["Pooling"] = true;
        builder["Maximum Pool Size"] = DatabaseSettings.PoolSize;
        builder["Minimum Pool Size"] = 0;
        builder["Connection Reset"] = false;
        // How long a request may wait for a pooled connection (or a new one to open). mysql2 queues
        // requests without a limit; 60 s is as long as any load plan waits for an answer (JMeter's
        // response timeout), so no wait under load ends early (a 5 s limit turned waits at 500
        // concurrent GraphQL requests into 503s), while 0 would mean "no wait at all" to MySql.Data.
        // A refused connection (database down) still fails at once.
        builder["Connection Timeout"] = PoolWaitSeconds;
        foreach (var (keyword, value) in DriverSettings)
            builder[keyword] = value;
        return builder.ConnectionString;
    }

    /// <summary>True when the failure means "no database to talk to", not a bug: 503, not 500.</summary>
    public abstract bool IsUnreachable(Exception error);

    /// <summary>Clear the driver's own, process-wide pools (MySql.Data's data source draws on them).</summary>
    public abstract void ForgetConnections();

    public DbDataSource CreateDataSource(DatabaseSettings settings) =>
        Factory.CreateDataSource(ConnectionString(settings));

    /// <summary>The version of the driver assembly actually loaded, as its package names it.</summary>
    public string Version => Factory.GetType().Assembly
        .GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0]
        ?? Factory.GetType().Assembly.GetName().Version!.ToString();

    public static DatabaseDriver FromEnvironment()
    {
        var name = Environment.GetEnvironmentVariable(Variable);
        return name switch
        {
            null or "" or MySqlConnectorDriver.Id => new MySqlConnectorDriver(),
            MySqlDataDriver.Id => new MySqlDataDriver(),
            _ => throw new BadSettingException(
                $"{Variable} must be {MySqlConnectorDriver.Id} (the default) or {MySqlDataDriver.Id}, not '{name}'."),
        };
    }

    /// <summary>Socket, I/O and timeout failures anywhere in the cause chain, whatever the driver.</summary>
    protected static bool IsTransportFailure(Exception error)
    {
        for (var e = error; e is not null; e = e.InnerException)
            if (e is System.Net.Sockets.SocketException or IOException or TimeoutException or EndOfStreamException)
                return true;
        return false;
    }
}
