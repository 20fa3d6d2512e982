using AspnetApi;
using AspnetApi.Data;
using AspnetApi.GraphQL;
using AspnetApi.Http;

BadSettings.ExitWithOneLine();
var builder = WebApplication.CreateBuilder(args);
builder.ConfigureServer();
builder.ConfigureQuietLogging();
builder.ConfigureJson();
var driver = DatabaseDriver.FromEnvironment();
var apiStyle = ApiStyles.FromEnvironment();
builder.Services.AddForumData(DatabaseSettings.FromEnvironment(), driver);
builder.Services.AddForumGraphQL(GraphQLLimitSettings.FromEnvironment());
builder.Services.AddApiStyle(apiStyle);

var app = builder.Build();
app.Services.InitializeForumSchema();
app.UseKeepAliveHeaders();
app.UseProblemsForErrors();

// Endpoints/ (minimal APIs) or Controllers/ (MVC): the same routes and handlers either way.
app.MapForumEndpoints(apiStyle);

app.Lifetime.ApplicationStarted.Register(() => LoadedReport.Print(driver, apiStyle));
app.Run();
