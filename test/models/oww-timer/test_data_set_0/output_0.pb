B‹{"1": "1_minute_timer", "2": "5_minute_timer", "3": "10_minute_timer", "4": "20_minute_timer", "5": "30_minute_timer", "6": "1_hour_timer"}J«>o4>Θϊ=Θϊ=γν>Θ@>
{$>