using Api;

var builder = WebApplication.CreateBuilder(args);
builder.ConfigureServer();
builder.Logging.SetMinimumLevel(LogLevel.Warning);
builder.Services.AddSingleton(Database.FromEnvironment());

var app = builder.Build();
app.UseKeepAliveHeaders();
app.MapHealth();
app.MapRoutesStillToWrite();
app.MapFallback(Responses.NoSuchEndpoint);

app.Lifetime.ApplicationStarted.Register(LoadedReport.Print);
app.Run();
