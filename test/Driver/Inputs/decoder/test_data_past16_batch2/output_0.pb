BlogitsJXŠ[@>R&h>Æxm¿ÅÉì?âÖB?œzÓ>:½
<mŸ>Ï» ¾DiÆ¼!dw¿@o?Š\V?S¾Ve¾‹«?¡õ¾Mi=/ëå?¦Z¬¿5`	?NLm¿